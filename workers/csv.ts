/** Piscina entry: export_table to CSV; the writing is writeCsv in src/files/formats/csv-writer.ts. */
import { writeCsv } from '../src/files/formats/csv-writer.js';
import { workerTask } from '../src/files/pool/worker-run.js';

export default workerTask(writeCsv, { format: 'csv' });
