/** Piscina entry: build_document as DOCX; the writing is writeDocx in src/files/formats/docx-writer.ts. */
import { writeDocx } from '../src/files/formats/docx-writer.js';
import { workerTask } from '../src/files/pool/worker-run.js';

export default workerTask(writeDocx, { format: 'docx', library: 'docx' });
