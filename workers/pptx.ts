/** Piscina entry: build_document as PPTX; the writing is writePptx in src/files/formats/pptx-writer.ts. */
import { writePptx } from '../src/files/formats/pptx-writer.js';
import { workerTask } from '../src/files/pool/worker-run.js';

export default workerTask(writePptx, { format: 'pptx', library: 'pptxgenjs' });
