import { tableText } from './table-text.js';
import type { OutputColumn } from '../selection/selection.js';
import { maxMarkdownCellChars } from './markdown-table.js';
import { neutralizeMarkdown } from './markdown-safe-text.js';

/** A Markdown table cut to a size, with exact facts about what it shows. */
export interface SizedMarkdown {
  markdown: string;
  /** Rows shown: the first `shown` of the selection. */
  shown: number;
  /** Cells cut to maxMarkdownCellChars: how many, and the first few as {row (1-based), column}. */
  cut: { count: number; first: { row: number; column: string }[] };
  /** Per column: its times were moved into the stated zone (its header names it). */
  zoned: boolean[];
}

/**
 * A GitHub-flavoured Markdown table of whole rows whose UTF-8 size stays within
 * `maxBytes`: rows are added in order until the next would pass it, so what
 * the model reads inline is never cut by the host in the middle of the table
 * (and the footer after it, which says what is shown, always fits).
 * Values are formatted by their column formats in the locale; numbers are
 * right-aligned; a cell over 500 characters is cut with "…"; cells can carry
 * no HTML, links or images (neutralizeMarkdown).
 */
export function sizedMarkdownTable(options: {
  columns: OutputColumn[];
  rows: unknown[][];
  locale: string;
  maxBytes: number;
  timeZone?: string;
}): SizedMarkdown {
  const { columns, rows, locale, maxBytes, timeZone } = options;
  const text = tableText({ columns, rows, locale, maxCellChars: maxMarkdownCellChars, ...(timeZone === undefined ? {} : { timeZone }) });
  const lines = [
    `| ${text.headers.map((header) => neutralizeMarkdown(header) || ' ').join(' | ')} |`,
    `| ${text.numeric.map((right) => (right ? '---:' : '---')).join(' | ')} |`,
  ];
  let bytes = Buffer.byteLength(lines.join('\n'));
  let shown = 0;
  for (const row of text.cells) {
    const line = `| ${row.map(neutralizeMarkdown).join(' | ')} |`;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) break;
    lines.push(line);
    bytes += size;
    shown += 1;
  }
  const cut = { count: 0, first: [] as { row: number; column: string }[] };
  for (const cell of text.cut.first) if (cell.row <= shown) cut.first.push(cell);
  // text.cut counts every row; count only the rows shown.
  cut.count =
    shown === text.cells.length
      ? text.cut.count
      : text.cells.slice(0, shown).reduce((sum, row) => sum + row.filter((value) => value.endsWith('…') && value.length === maxMarkdownCellChars).length, 0);
  return { markdown: lines.join('\n'), shown, cut, zoned: text.zoned };
}
