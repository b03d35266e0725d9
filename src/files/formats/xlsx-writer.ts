/** export_table to XLSX with exceljs's streaming writer. */
import ExcelJS from 'exceljs';
import { formatCount } from '../../util/format.js';
import { selectRows } from '../selection/select-rows.js';
import { dataRowsPerSheet, excelCellCharLimit, excelSheetRowLimit, sheetName } from './sheet-limit.js';
import { openTableSource } from '../sources/table-source.js';
import { displayText, emptyTableError, xmlSafeText } from './table-notes.js';
import { openOutput, waitForDrain } from '../pool/worker-output.js';
import type { TableResult, TableTask, ProgressMessage } from '../pool/worker-task.js';

/**
 * exceljs has no backpressure: a worksheet's buffer pipes into archiver's entry
 * stream (a readable-stream PassThrough) without ever waiting, so without this
 * the sheet XML piles up in memory (~400 bytes a row: ~600 MB at 1M rows).
 * Waiting for that stream, then for the file, keeps the export at constant memory.
 */
async function letZipCatchUp(sheet: ExcelJS.Worksheet, file: NodeJS.WritableStream & { writableNeedDrain?: boolean }): Promise<void> {
  const buffer = (sheet as unknown as { stream?: { pipes?: unknown[] } }).stream;
  for (const pipe of buffer?.pipes ?? []) {
    const target = pipe as NodeJS.WritableStream & { _writableState?: { needDrain?: boolean } };
    while (target._writableState?.needDrain === true) await waitForDrain(target);
  }
  if (file.writableNeedDrain === true) await waitForDrain(file);
}

/** Rows whose text sizes the column widths. */
const widthSampleRows = 1000;
/** exceljs has no backpressure: every this many rows, let the zip catch up with the file. */
const drainEveryRows = 1000;

export async function writeXlsx(task: TableTask, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  const source = await openTableSource(task.source);
  try {
    const selected = await selectRows({ source, selection: task.selection, onProgress: progress });
    const { columns } = selected;
    if (columns.length === 0) throw emptyTableError(source.name);
    const perSheet = dataRowsPerSheet(task.sheetRowLimit ?? excelSheetRowLimit);
    const output = await openOutput(task.output);
    try {
      const stream = output.pending.stream;
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false, useStyles: true });
      const iterator = selected.batches[Symbol.asyncIterator]();

      // The first rows decide the column widths, which must be set before any row is written.
      const sample: unknown[][] = [];
      let pending: unknown[][] = [];
      while (sample.length < widthSampleRows) {
        const next = await iterator.next();
        if (next.done === true) break;
        for (const row of next.value) sample.push(row);
      }
      const widths = columns.map((column, index) => {
        let longest = column.header.length;
        for (const row of sample) longest = Math.max(longest, Math.min(displayText(row[index]).length, 200));
        return Math.min(60, Math.max(8, longest + 2));
      });
      pending = sample;

      let cutCells = 0;
      const cell = (value: unknown): unknown => {
        if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
        let text = typeof value === 'string' ? value : JSON.stringify(value);
        text = xmlSafeText(text);
        if (text.length > excelCellCharLimit) {
          cutCells += 1;
          text = text.slice(0, excelCellCharLimit);
        }
        // A string cell is always text in XLSX, even when it starts with "=": no formula guard needed.
        return text;
      };

      let sheet: ExcelJS.Worksheet | undefined;
      let sheets = 0;
      let inSheet = perSheet;
      let written = 0;
      const startSheet = () => {
        sheet?.commit();
        sheet = workbook.addWorksheet(sheetName(sheets), { views: [{ state: 'frozen', ySplit: 1 }] });
        sheets += 1;
        sheet.columns = widths.map((width) => ({ width }));
        const header = sheet.addRow(columns.map((column) => xmlSafeText(column.header)));
        header.font = { bold: true };
        header.commit();
        inSheet = 0;
      };
      const writeRows = async (rows: unknown[][]) => {
        for (const row of rows) {
          if (inSheet === perSheet) startSheet();
          (sheet as ExcelJS.Worksheet).addRow(row.map(cell)).commit();
          inSheet += 1;
          written += 1;
          if (written % drainEveryRows === 0) await letZipCatchUp(sheet as ExcelJS.Worksheet, stream);
        }
      };

      await writeRows(pending);
      pending = [];
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) break;
        await writeRows(next.value);
        progress({ phase: 'writing', bytesRead: source.counter.bytesRead, bytes: source.bytes, rows: written });
      }
      if (sheet === undefined) startSheet();
      sheet?.commit();
      await workbook.commit();
      const file = await output.commit();

      const notes: string[] = [];
      if (sheets > 1) {
        notes.push(
          `The ${formatCount(written)} rows do not fit one sheet (at most ${formatCount(perSheet + 1)} rows, header included), so they are split over ${sheets} sheets (${Array.from({ length: sheets }, (_, index) => sheetName(index)).join(', ')}), each with the header row.`,
        );
      }
      if (cutCells > 0) notes.push(`${formatCount(cutCells)} cells held more than ${formatCount(excelCellCharLimit)} characters (Excel's cell limit) and were cut to that length; use CSV for the full text.`);
      return { ...file, rows: written, columns, stats: selected.stats, notes, sheets };
    } catch (error) {
      await output.abort();
      throw error;
    }
  } finally {
    await source.close();
  }
}
