/** export_table to CSV. Reads the source itself, streams, writes atomically. */
import { csvFormatter } from '../columns/format-values.js';
import { resolveFormats } from '../columns/resolve-formats.js';
import { digitCodeColumns, digitCodesNote } from '../columns/digit-codes.js';
import { csvLine } from './csv-cells.js';
import { csvLineIn, type CsvDialect } from './csv-dialect.js';
import { csvFromJsonl } from './csv-from-jsonl.js';
import { defaultSplit, segmentedCsv, worthSplitting, type SplitPlan } from './csv-segments.js';
import { resolveColumns, selectRows } from '../selection/select-rows.js';
import type { OutputColumn } from '../selection/selection.js';
import { openTableSource, type TableSource } from '../sources/table-source.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { TableResult, TableTask, ProgressMessage } from '../pool/worker-task.js';
import { emptyTableError } from './table-notes.js';

/** Serialized rows are gathered into chunks of at least this many characters before each write. */
const chunkChars = 256 * 1024;
const byteOrderMark = '\uFEFF';

export async function writeCsv(task: TableTask, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  return writeCsvSplit(task, progress, defaultSplit);
}

/** writeCsv with a chosen split plan (tests split small files to check the two-thread path). */
export async function writeCsvSplit(task: TableTask, progress: (message: ProgressMessage) => void, plan: SplitPlan): Promise<TableResult> {
  const source = await openTableSource(task.source);
  try {
    const dialect: CsvDialect = { delimiter: task.delimiter ?? ',', formulaGuard: task.formulaGuard ?? true };
    if (!transcodable(source, task)) return await writeRows(task, source, dialect, progress);
    const columns = resolveColumns(task.selection, source.knownColumns, source.name);
    if (columns.length === 0) throw emptyTableError(source.name);
    const bom = task.bom ?? true;
    const base = { source, selection: task.selection, columns, dialect, bom, onProgress: progress };
    if (worthSplitting(task.selection, source.bytes, plan)) {
      const output = await openOutput(task.output);
      const stream = output.pending.stream;
      const stats = await segmentedCsv({ ...base, location: task.source, plan, write: (block, written) => writeChunk(stream, block, written) }).catch(
        () => undefined,
      );
      plan.onOutcome?.(stats === undefined ? 'one thread' : 'split');
      if (stats !== undefined) {
        const written = await output.commit();
        return { ...written, rows: stats.rows, columns, stats, notes: await digitCodesNotes(task, stats.rows) };
      }
      // Something failed on the way (an invalid line, most likely): the file is written again on one thread, for the exact error.
      await output.abort();
    }
    const output = await openOutput(task.output);
    try {
      const stream = output.pending.stream;
      const stats = await csvFromJsonl({ ...base, write: (block, written) => writeChunk(stream, block, written) });
      const written = await output.commit();
      return { ...written, rows: stats.rows, columns, stats, notes: await digitCodesNotes(task, stats.rows) };
    } catch (error) {
      await output.abort();
      throw error;
    }
  } finally {
    await source.close();
  }
}

/**
 * A JSONL source with known columns (a spill and its metadata) and no named
 * column formats goes from bytes to CSV bytes without row objects
 * (csv-from-jsonl.ts); anything else through selectRows.
 */
export function transcodable(
  source: TableSource,
  task: TableTask,
): source is TableSource & { knownColumns: string[]; readAt: NonNullable<TableSource['readAt']> } {
  return (
    source.format === 'jsonl' &&
    source.knownColumns !== undefined &&
    (task.selection.columns ?? []).every((column: OutputColumn) => column.format === undefined)
  );
}

/** The general writer alone, whatever the source (the transcoder's tests compare the two). */
export async function writeCsvByRows(task: TableTask, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  const source = await openTableSource(task.source);
  try {
    return await writeRows(task, source, { delimiter: task.delimiter ?? ',', formulaGuard: task.formulaGuard ?? true }, progress);
  } finally {
    await source.close();
  }
}

/** The general writer: rows as arrays from selectRows, named formats applied, one CSV line each. */
async function writeRows(task: TableTask, source: TableSource, dialect: CsvDialect, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  const selected = await selectRows({ source, selection: task.selection, onProgress: progress });
  const { columns } = selected;
  if (columns.length === 0) throw emptyTableError(source.name);
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
    for await (const batch of selected.batches) {
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
    return { ...written, rows: selected.stats.rows, columns, stats: selected.stats, notes: await digitCodesNotes(task, selected.stats.rows) };
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/** Rows looked at for codes a spreadsheet would change (the general writer looks at its first batch). */
const codeProbeRows = 1000;

/**
 * The note for columns holding codes a spreadsheet would turn into numbers,
 * the same on both paths: the selected columns of the source's first rows in
 * file order (unsorted: sorting again for a note would cost as much as the
 * export), read once more (a thousand rows: a few ms); none for an empty export.
 */
async function digitCodesNotes(task: TableTask, exportedRows: number): Promise<string[]> {
  if (exportedRows === 0) return [];
  const probe = await openTableSource(task.source);
  try {
    const selected = await selectRows({ source: probe, selection: { ...task.selection, sort: [], range: { start: 0, count: codeProbeRows } } });
    for await (const batch of selected.batches) {
      const note = digitCodesNote(
        selected.columns.map((column) => column.header),
        digitCodeColumns(batch, selected.columns.length),
      );
      return note === undefined ? [] : [note];
    }
    return [];
  } finally {
    await probe.close();
  }
}
