/** export_table to CSV. Reads the source itself, streams, writes atomically. */
import { csvHeaderLine, csvLine } from './csv-cells.js';
import { selectRows } from '../selection/select-rows.js';
import { openTableSource } from '../sources/table-source.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { TableResult, TableTask, ProgressMessage } from '../pool/worker-task.js';
import { emptyTableError } from './table-notes.js';

/** Serialized rows are gathered into chunks of at least this many characters before each write. */
const chunkChars = 256 * 1024;

export async function writeCsv(task: TableTask, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  const source = await openTableSource(task.source);
  try {
    const selected = await selectRows({ source, selection: task.selection, onProgress: progress });
    if (selected.columns.length === 0) throw emptyTableError(source.name);
    const output = await openOutput(task.output);
    try {
      const stream = output.pending.stream;
      let chunk = csvHeaderLine(selected.columns.map((column) => column.header));
      for await (const batch of selected.batches) {
        for (const row of batch) {
          chunk += csvLine(row);
          if (chunk.length >= chunkChars) {
            await writeChunk(stream, chunk);
            chunk = '';
          }
        }
      }
      if (chunk.length > 0) await writeChunk(stream, chunk);
      const written = await output.commit();
      return { ...written, rows: selected.stats.rows, columns: selected.columns, stats: selected.stats, notes: [] };
    } catch (error) {
      await output.abort();
      throw error;
    }
  } finally {
    await source.close();
  }
}
