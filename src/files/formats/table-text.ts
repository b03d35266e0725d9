import type { ColumnFormat } from '../columns/column-format.js';
import { displayFormatter, isNumericFormat } from '../columns/format-values.js';
import { resolveFormats } from '../columns/resolve-formats.js';
import { xmlSafeText } from './table-notes.js';

/** A table as the text a reader sees in DOCX, PPTX or Markdown: formatted, XML-safe, long cells capped. */
export interface TableText {
  headers: string[];
  formats: ColumnFormat[];
  /** Right-aligned columns (numbers of any format). */
  numeric: boolean[];
  cells: string[][];
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
  maxCellChars: number;
}): TableText {
  const { columns, rows, locale, maxCellChars } = options;
  const formats = resolveFormats(columns, rows).map((resolved) => resolved.format);
  const show = formats.map((format) => displayFormatter(format, locale));
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
  return { headers: columns.map((column) => xmlSafeText(column.header)), formats, numeric: formats.map(isNumericFormat), cells, cut };
}

/** The note a result carries when cells were cut. */
export function cutCellsNote(cut: TableText['cut'], maxCellChars: number, where: string): string | undefined {
  if (cut.count === 0) return undefined;
  const examples = cut.first.map((cell) => `row ${cell.row} "${cell.column}"`).join(', ');
  return `${where}: ${cut.count} cell${cut.count === 1 ? ' was' : 's were'} longer than ${maxCellChars} characters and ${cut.count === 1 ? 'was' : 'were'} cut with "…" (${examples}${cut.count > cut.first.length ? ', …' : ''}); export_table gives the full text.`;
}
