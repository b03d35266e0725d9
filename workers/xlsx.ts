/** Piscina entry: export_table to XLSX; the writing is writeXlsx in src/files/formats/xlsx-writer.ts. */
import { writeXlsx } from '../src/files/formats/xlsx-writer.js';
import { workerTask } from '../src/files/pool/worker-run.js';

export default workerTask(writeXlsx, { format: 'xlsx', library: 'exceljs' });
