import { neutralizeMarkdown } from './markdown-safe-text.js';
import { displayText, numericColumns } from './table-notes.js';
import type { OutputColumn } from '../selection/selection.js';

/** A cell longer than this is cut with "…" (the table is for reading in an answer). */
export const maxMarkdownCellChars = 500;

/** Text safe inside a GFM table cell: pipes escaped, no HTML, links or images (neutralizeMarkdown), line breaks as <br>, cut when very long. */
export function markdownCell(value: unknown): string {
  let text = displayText(value);
  if (text.length > maxMarkdownCellChars) text = `${text.slice(0, maxMarkdownCellChars - 1)}…`;
  return neutralizeMarkdown(text);
}

/** A GitHub-flavoured Markdown table; columns holding only numbers are right-aligned. */
export function markdownTable(columns: OutputColumn[], rows: unknown[][]): string {
  const numeric = numericColumns(columns.length, rows);
  const lines = [
    `| ${columns.map((column) => markdownCell(column.header) || ' ').join(' | ')} |`,
    `| ${numeric.map((right) => (right ? '---:' : '---')).join(' | ')} |`,
  ];
  for (const row of rows) lines.push(`| ${row.map(markdownCell).join(' | ')} |`);
  return lines.join('\n');
}
