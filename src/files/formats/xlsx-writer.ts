/** export_table to XLSX with exceljs's streaming writer: one sheet per source, typed and formatted cells, a filtered frozen header. */
import ExcelJS from 'exceljs';
import { formatCount } from '../../util/format.js';
import type { ColumnFormat } from '../columns/column-format.js';
import { defaultLocale, displayFormatter, excelNumberFormat, excelValue, isNumericFormat } from '../columns/format-values.js';
import { zonedColumns, zonedHeader, zoneNote } from '../columns/time-zone-label.js';
import { resolveFormats } from '../columns/resolve-formats.js';
import { displayCells } from '../layout/text-width.js';
import { selectRows } from '../selection/select-rows.js';
import { dataRowsPerSheet, excelCellCharLimit, excelSheetColumnLimit, excelSheetRowLimit, tooWideForSheet } from './sheet-limit.js';
import { SheetNames } from './sheet-names.js';
import { defaultFontFamily } from '../../util/font-family-name.js';
import { openTableSource } from '../sources/table-source.js';
import { emptyTableError, xmlSafeText } from './table-notes.js';
import { openOutput, unlessStreamFails, waitForDrain, type OutputFile } from '../pool/worker-output.js';
import type { SheetPart, SheetReport, TableResult, TableTask, ProgressMessage } from '../pool/worker-task.js';

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

/** Rows whose text sizes the column widths and decides inferred formats. */
const sampleRows = 1000;
/** exceljs has no backpressure: every this many rows, let the zip catch up with the file. */
const drainEveryRows = 1000;

/** Numbers and dates are right-aligned by spreadsheets; their headers stand right over them. */
function alignsRight(format: ColumnFormat): boolean {
  return isNumericFormat(format) || format.type === 'date' || format.type === 'datetime';
}

/**
 * The workbook's styles in one font family: a named font on every styled cell
 * (without one LibreOffice falls back to a serif face), the header bold and
 * shaded, right-aligned over a column whose values stand right. Made once a
 * workbook: exceljs caches a style's id by the object's identity.
 */
function workbookStyles(family: string) {
  const font = { name: family, size: 10 };
  const header: Partial<ExcelJS.Style> = {
    font: { ...font, bold: true, color: { argb: 'FF1F3864' } },
    fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFD9E2F3' } },
    border: { bottom: { style: 'thin', color: { argb: 'FF8EA9DB' } } },
    alignment: { vertical: 'middle' },
  };
  const numericHeader: Partial<ExcelJS.Style> = { ...header, alignment: { vertical: 'middle', horizontal: 'right' } };
  return { font, header, numericHeader };
}

export async function writeXlsx(task: TableTask, progress: (message: ProgressMessage) => void): Promise<TableResult> {
  const parts: SheetPart[] = [
    { source: task.source, selection: task.selection, ...(task.sheet === undefined ? {} : { sheet: task.sheet }) },
    ...(task.moreSheets ?? []),
  ];
  const locale = task.locale ?? defaultLocale;
  const styles = workbookStyles(task.fontFamily ?? defaultFontFamily);
  const { font } = styles;
  const names = new SheetNames();
  let output: OutputFile | undefined;
  let workbook: ExcelJS.stream.xlsx.WorkbookWriter | undefined;
  const reports: SheetReport[] = [];
  const notes: string[] = [];
  try {
    for (const part of parts) {
      const source = await openTableSource(part.source);
      try {
        const selected = await selectRows({ source, selection: part.selection, onProgress: progress });
        const { columns } = selected;
        if (columns.length === 0) throw emptyTableError(source.name);
        // Before the output opens (or, for a later source, before its sheet): exceljs would throw a raw error past the limit.
        if (columns.length > excelSheetColumnLimit) throw tooWideForSheet({ source: source.name, columns: columns.length });
        const iterator = selected.batches[Symbol.asyncIterator]();
        // The first rows decide formats and widths, which must be set before any row is written.
        const sample: unknown[][] = [];
        while (sample.length < sampleRows) {
          const next = await iterator.next();
          if (next.done === true) break;
          for (const row of next.value) sample.push(row);
        }
        const formats = resolveFormats(
          columns.map((column) => ({ ...column, ...formatOf(part, column.name) })),
          sample,
        ).map((resolved) => resolved.format);

        output ??= await openOutput(task.output);
        const stream = output.pending.stream;
        workbook ??= new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false, useStyles: true });
        const book = workbook;
        const perSheet = dataRowsPerSheet(task.sheetRowLimit ?? excelSheetRowLimit);
        const base = part.sheet ?? (parts.length > 1 ? sourceLabel(source.name) : 'Data');
        const widths = columnWidths(
          columns.map((column) => column.header),
          formats,
          sample,
          locale,
        );
        const columnStyles = formats.map((format) => {
          const numFmt = excelNumberFormat(format, locale);
          return numFmt === undefined ? undefined : { font, numFmt };
        });
        // Text columns get the header's font family too, through one shared style object (exceljs
        // caches a style's id by identity; a column style would give every cell its own copy).
        const cellStyles = columnStyles.map((style) => style ?? { font });
        const zoned = zonedColumns({ formats, rows: sample, ...(task.timeZone === undefined ? {} : { timeZone: task.timeZone }) });
        const headers = columns.map((column, index) => xmlSafeText(zoned[index] === true ? zonedHeader(column.header, task.timeZone) : column.header));

        let cutCells = 0;
        const cell = (value: unknown, index: number): unknown => {
          if (value === null || typeof value === 'boolean') return value;
          if (typeof value === 'number' && zoned[index] !== true) return value;
          if ((typeof value === 'string' || typeof value === 'number') && columnStyles[index] !== undefined) {
            const typed = excelValue(value, formats[index] as ColumnFormat, task.timeZone);
            if (typed instanceof Date) return typed;
          }
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
        const sheetNames: string[] = [];
        let inSheet = perSheet;
        let written = 0;
        const startSheet = () => {
          sheet?.commit();
          const name = names.take(base, sheetNames.length);
          sheetNames.push(name);
          sheet = book.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1, activeCell: 'A2' }] });
          sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } };
          sheet.columns = widths.map((width) => ({ width }));
          const header = sheet.addRow(headers);
          header.height = 18;
          header.eachCell((headerCell, number) => {
            headerCell.style = alignsRight(formats[number - 1] as ColumnFormat) ? styles.numericHeader : styles.header;
          });
          header.commit();
          inSheet = 0;
        };
        const writeRows = async (rows: unknown[][]) => {
          for (const row of rows) {
            if (inSheet === perSheet) startSheet();
            const added = (sheet as ExcelJS.Worksheet).addRow(row.map(cell));
            // One style object per column, shared by its cells: exceljs caches a style's id by object
            // identity, so a shared object costs a lookup where a per-cell copy costs its XML.
            cellStyles.forEach((style, index) => {
              if (row[index] !== null && row[index] !== undefined) added.getCell(index + 1).style = style;
            });
            added.commit();
            inSheet += 1;
            written += 1;
            if (written % drainEveryRows === 0) await unlessStreamFails(stream, letZipCatchUp(sheet as ExcelJS.Worksheet, stream));
          }
        };

        await writeRows(sample);
        for (;;) {
          const next = await iterator.next();
          if (next.done === true) break;
          await writeRows(next.value);
          progress({ phase: 'writing', bytesRead: source.counter.bytesRead, bytes: source.bytes, rows: written });
        }
        if (sheet === undefined) startSheet();
        sheet?.commit();

        if (sheetNames.length > 1) {
          notes.push(
            `The ${formatCount(written)} rows of ${source.name} do not fit one sheet (at most ${formatCount(perSheet + 1)} rows, header included), so they are split over ${sheetNames.length} sheets (${sheetNames.join(', ')}), each with the header row.`,
          );
        }
        if (cutCells > 0)
          notes.push(
            `${formatCount(cutCells)} cells of ${source.name} held more than ${formatCount(excelCellCharLimit)} characters (Excel's cell limit) and were cut to that length; use CSV for the full text.`,
          );
        const zones = zoneNote({
          headers: columns.map((column) => column.header),
          zoned,
          where: source.name,
          ...(task.timeZone === undefined ? {} : { timeZone: task.timeZone }),
        });
        if (zones !== undefined) notes.push(zones);
        reports.push({ source: source.name, sheets: sheetNames, rows: written, columns, formats, stats: selected.stats });
      } finally {
        await source.close();
      }
    }
    // A full disk fails the file stream; exceljs would then wait for its finish forever.
    await unlessStreamFails((output as OutputFile).pending.stream, (workbook as ExcelJS.stream.xlsx.WorkbookWriter).commit());
    const file = await (output as OutputFile).commit();
    const first = reports[0] as SheetReport;
    const sheets = reports.reduce((sum, report) => sum + report.sheets.length, 0);
    return { ...file, rows: reports.reduce((sum, report) => sum + report.rows, 0), columns: first.columns, stats: first.stats, notes, sheets, parts: reports };
  } catch (error) {
    await output?.abort();
    throw error;
  }
}

function formatOf(part: SheetPart, name: string): { format?: ColumnFormat } {
  const format = part.selection.columns?.find((column) => column.name === name)?.format;
  return format === undefined ? {} : { format };
}

/** Widths in Excel's units (about one digit each; a CJK character or an emoji takes two) from the header and the formatted sample text. */
function columnWidths(headers: string[], formats: ColumnFormat[], sample: unknown[][], locale: string): number[] {
  return headers.map((header, index) => {
    const show = displayFormatter(formats[index] as ColumnFormat, locale);
    // The header needs room for the filter button too.
    let longest = displayCells(header) + 2;
    for (const row of sample) longest = Math.max(longest, Math.min(displayCells(show(row[index])), 200));
    // Half a unit over a whole number: exceljs drops a column whose width is exactly its default (9).
    return Math.min(60, Math.max(8, longest + 2)) + 0.5;
  });
}

/** "results/0007-query_sql.jsonl" → "query_sql": a sheet name from the tool that made the source. */
export function sourceLabel(source: string): string {
  const base = source.split('/').pop() ?? source;
  return base.replace(/\.[^.]+$/, '').replace(/^\d+-/, '') || 'Data';
}
