/** export_table to CSV. Reads the source itself, streams, writes atomically. */
import { csvFormatter } from '../columns/format-values.js';
import { resolveFormats } from '../columns/resolve-formats.js';
import { digitCodeColumns, digitCodesNote } from '../columns/digit-codes.js';
import { csvLine } from './csv-cells.js';
import { csvLineIn, type CsvDialect } from './csv-dialect.js';
import { selectRows } from '../selection/select-rows.js';
import { openTableSource } from '../sources/table-source.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { TableResult, TableTask, ProgressMessage } from '../pool/worker-task.js';
import { emptyTableError } from './table-notes.js';

/** Serialized rows are gathered into chunks of at least this many characters before each write. */
const chunkChars = 256 * 1024;
const byteOrderMark = '\uFEFF';

export async function writeCsv(task: TableTask, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  const source = await openTableSource(task.source);
  try {
    const selected = await selectRows({ source, selection: task.selection, onProgress: progress });
    const { columns } = selected;
    if (columns.length === 0) throw emptyTableError(source.name);
    const dialect: CsvDialect = { delimiter: task.delimiter ?? ',', formulaGuard: task.formulaGuard ?? true };
    const line = dialect.delimiter === ',' && dialect.formulaGuard ? csvLine : (values: readonly unknown[]) => csvLineIn(values, dialect);
    // Only formats the call names change CSV values; they are checked against the first batch.
    const named = columns.map((column) => column.format);
    const formatters = named.map((format) => (format === undefined ? undefined : csvFormatter(format, task.timeZone)));
    const formatted = formatters.some((formatter) => formatter !== undefined);
    let checked = !named.some((format) => format !== undefined);
    const output = await openOutput(task.output);
    try {
      const stream = output.pending.stream;
      let chunk = ((task.bom ?? true) ? byteOrderMark : '') + line(columns.map((column) => column.header));
      let codes: ReturnType<typeof digitCodeColumns> | undefined;
      for await (const batch of selected.batches) {
        // The first batch tells which columns hold codes a spreadsheet would turn into numbers.
        codes ??= digitCodeColumns(batch, columns.length);
        if (!checked) {
          resolveFormats(columns, batch);
          checked = true;
        }
        for (const row of batch) {
          chunk += line(formatted ? row.map((value, index) => formatters[index]?.(value) ?? value) : row);
          if (chunk.length >= chunkChars) {
            await writeChunk(stream, chunk);
            chunk = '';
          }
        }
      }
      if (chunk.length > 0) await writeChunk(stream, chunk);
      const written = await output.commit();
      const note = digitCodesNote(
        columns.map((column) => column.header),
        codes ?? [],
      );
      return { ...written, rows: selected.stats.rows, columns, stats: selected.stats, notes: note === undefined ? [] : [note] };
    } catch (error) {
      await output.abort();
      throw error;
    }
  } finally {
    await source.close();
  }
}
