import type { Config } from '../../config/schema.js';
import type { MarkdownResult } from '../../files/pool/worker-task.js';
import { formatCount, plural } from '../../util/format.js';
import { mostSpecificMatch } from '../../util/tool-pattern.js';

/** Bytes kept free after the table for the footer line (which names rows and cut cells). */
const footerReserveBytes = 2_000;

/**
 * The UTF-8 bytes draw_table's table may take so that it and its footer fit
 * the inline cap the host applies to draw_table's result (inline.maxTokens,
 * or the tool's own spill.tools override, at inline.bytesPerToken).
 */
export function inlineTableBytes(config: Config): number {
  const override = mostSpecificMatch(config.spill.tools, 'draw_table') as { inlineMaxTokens?: number } | undefined;
  const tokens = override?.inlineMaxTokens ?? config.inline.maxTokens;
  return Math.max(1_000, Math.floor(tokens * config.inline.bytesPerToken) - footerReserveBytes);
}

/** The line after the table: exactly which rows it shows, of how many, and which cells were cut. */
export function drawTableFooter(options: { source: string; result: MarkdownResult; notes: string[] }): string {
  const { source, result, notes } = options;
  const { rows, selectedRows, cutCells } = result;
  const parts: string[] = [];
  if (rows === selectedRows) {
    const of = result.stats.sourceRows !== undefined && result.stats.sourceRows !== rows ? ` of ${formatCount(result.stats.sourceRows)}` : '';
    parts.push(`${plural(rows, 'row')}${of} × ${plural(result.columns.length, 'column')} from ${source}. Copy the table into your answer as it is.`);
  } else {
    parts.push(
      `This table shows rows 1–${formatCount(rows)} of the ${formatCount(selectedRows)} selected rows (× ${plural(result.columns.length, 'column')}) from ${source}; rows ${formatCount(rows + 1)}–${formatCount(selectedRows)} are left out because the whole table would not fit what you can read inline.` +
        ` Say in your answer that it shows rows 1–${formatCount(rows)} of ${formatCount(selectedRows)}, and give the full set with export_table (or draw fewer rows or columns with range and columns).`,
    );
  }
  if (cutCells.count > 0) {
    const where = cutCells.first.map((cell) => `row ${formatCount(cell.row)} "${cell.column}"`).join(', ');
    parts.push(
      `${plural(cutCells.count, 'cell')} longer than 500 characters ${cutCells.count === 1 ? 'is' : 'are'} cut with "…" (${where}${cutCells.count > cutCells.first.length ? ', …' : ''}).`,
    );
  }
  return `[${[...parts, ...notes].join(' ')}]`;
}
