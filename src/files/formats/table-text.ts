import { cutToLines } from '../layout/table-pages.js';
import type { TablePlan } from '../layout/table-plan.js';
import type { ColumnFormat } from '../columns/column-format.js';
import { displayFormatter, isNumericFormat } from '../columns/format-values.js';
import { resolveFormats } from '../columns/resolve-formats.js';
import { zonedColumns, zonedHeader } from '../columns/time-zone-label.js';
import { xmlSafeText } from './table-notes.js';

/** A table as the text a reader sees in DOCX, PPTX or Markdown: formatted, XML-safe, long cells capped. */
export interface TableText {
  headers: string[];
  formats: ColumnFormat[];
  /** Right-aligned columns (numbers of any format). */
  numeric: boolean[];
  cells: string[][];
  /** Time columns shown in the stated zone (their headers name it). */
  zoned: boolean[];
  /** Cells cut to `maxCellChars`, and where: the first few as {row, column} (row counts from 1 in the table). */
  cut: { count: number; first: { row: number; column: string }[] };
}

/**
 * Formats every cell of an in-memory table with its column format (named in
 * the call or inferred from all rows) in the locale, and cuts cells longer
 * than `maxCellChars` with "…" so one huge cell cannot make a 59-page document.
 */
export function tableText(options: {
  columns: readonly { name: string; header: string; format?: ColumnFormat }[];
  rows: readonly unknown[][];
  locale: string;
  /** IANA zone that timestamps with offsets and epoch numbers are shown in (default UTC). */
  timeZone?: string;
  maxCellChars: number;
}): TableText {
  const { columns, rows, locale, maxCellChars, timeZone } = options;
  const formats = resolveFormats(columns, rows).map((resolved) => resolved.format);
  const show = formats.map((format) => displayFormatter(format, locale, timeZone));
  const zoned = zonedColumns({ formats, rows, ...(timeZone === undefined ? {} : { timeZone }) });
  const cut: TableText['cut'] = { count: 0, first: [] };
  const cells = rows.map((row, rowIndex) =>
    columns.map((column, index) => {
      let text = xmlSafeText((show[index] ?? String)(row[index]));
      if (text.length > maxCellChars) {
        cut.count += 1;
        if (cut.first.length < 5) cut.first.push({ row: rowIndex + 1, column: column.header });
        text = `${text.slice(0, maxCellChars - 1)}…`;
      }
      return text;
    }),
  );
  const headers = columns.map((column, index) => xmlSafeText(zoned[index] === true ? zonedHeader(column.header, timeZone) : column.header));
  return { headers, formats, numeric: formats.map(isNumericFormat), zoned, cells, cut };
}

/** The note a result carries when cells were cut. */
export function cutCellsNote(cut: TableText['cut'], maxCellChars: number, where: string): string | undefined {
  if (cut.count === 0) return undefined;
  const examples = cut.first.map((cell) => `row ${cell.row} "${cell.column}"`).join(', ');
  return `${where}: ${cut.count} cell${cut.count === 1 ? ' was' : 's were'} longer than ${maxCellChars} characters and ${cut.count === 1 ? 'was' : 'were'} cut with "…" (${examples}${cut.count > cut.first.length ? ', …' : ''}); export_table gives the full text.`;
}

/**
 * Cuts the cells of `columns` so that no row grows past `maxLines` lines in
 * its column's width: a row never taller than its share of a page or slide.
 * Returns the cells cut, as {@link TableText.cut} counts them.
 */
export function cutCellsToHeight(options: {
  text: TableText;
  columns: number[];
  widths: number[];
  fontSize: number;
  padding: number;
  maxLines: number;
}): TableText['cut'] {
  const { text, columns, widths, fontSize, padding, maxLines } = options;
  const cut: TableText['cut'] = { count: 0, first: [] };
  columns.forEach((column, index) => {
    const widthEms = ((widths[index] ?? 0) - padding) / fontSize;
    text.cells.forEach((row, rowIndex) => {
      const value = row[column] ?? '';
      const fitted = cutToLines(value, widthEms, maxLines);
      if (fitted === value) return;
      row[column] = fitted;
      cut.count += 1;
      if (cut.first.length < 5) cut.first.push({ row: rowIndex + 1, column: text.headers[column] ?? '' });
    });
  });
  return cut;
}

/** The note a result carries when cells were cut to keep rows inside the page or slide. */
export function tallCellsNote(cut: TableText['cut'], options: { maxLines: number; room: string; where: string }): string | undefined {
  const { maxLines, room, where } = options;
  if (cut.count === 0) return undefined;
  const examples = cut.first.map((cell) => `row ${cell.row} "${cell.column}"`).join(', ');
  return `${where}: ${cut.count} cell${cut.count === 1 ? ' was' : 's were'} cut with "…" at ${maxLines} lines, so that no row is taller than ${room} (${examples}${cut.count > cut.first.length ? ', …' : ''}); export_table gives the full text.`;
}

/** Cuts the cells of every part of a plan so that no row passes `maxLines` in its column (a repeated key column at its first width). */
export function cutPlanCells(options: { text: TableText; plan: TablePlan; maxLines: number; padding: number }): TableText['cut'] {
  const { text, plan, maxLines, padding } = options;
  if (plan.kind === 'records') {
    // One line a field: every value but the key's gets the value column's width.
    const columns = text.headers.map((_, column) => column).filter((column) => column !== plan.key);
    const width = plan.record?.widths[1] ?? 0;
    return cutCellsToHeight({ text, columns, widths: columns.map(() => width), fontSize: plan.fontSize, padding, maxLines });
  }
  const total: TableText['cut'] = { count: 0, first: [] };
  const done = new Set<number>();
  for (const part of plan.parts) {
    const columns = part.columns.filter((column) => !done.has(column));
    const widths = columns.map((column) => part.widths[part.columns.indexOf(column)] ?? 0);
    const cut = cutCellsToHeight({ text, columns, widths, fontSize: plan.fontSize, padding, maxLines });
    total.count += cut.count;
    total.first.push(...cut.first.slice(0, 5 - total.first.length));
    for (const column of columns) done.add(column);
  }
  return total;
}
