/**
 * Estimated heights (points) of what build_document's DOCX puts on a page, for
 * placing figures (layout/figure-placement.ts). Text is measured with the same
 * width estimates as the table columns (they err wide, so heights err tall).
 */
import { inlineSpans } from '../layout/inline-text.js';
import { rowHeight } from '../layout/table-pages.js';
import { wrappedLines } from '../layout/text-width.js';
import type { FlowItem } from '../layout/figure-placement.js';
import type { TablePlan } from '../layout/table-plan.js';
import { bodyLine, styleMetrics, type StyleName } from './docx-styles.js';
import type { TableText } from './table-text.js';

/** Arial's line is about 1.15 em (ascent and descent); spaced paragraphs multiply it by their line spacing. */
const fontLine = 1.15;
/** Cell text is single-spaced; the margins above and below a cell's text and its borders, in points. */
const cellPadY = 1;

/** Height of one paragraph of `text` (inline marks allowed) in a style, `width` points wide. */
export function paragraphHeight(options: { text: string; width: number; style: StyleName; spaced?: boolean }): number {
  const { text, width, style } = options;
  const metrics = styleMetrics[style];
  const plain = inlineSpans(text)
    .map((span) => span.text)
    .join('');
  const lines = wrappedLines(plain, width / metrics.size);
  const spacing = options.spaced === false ? 1 : bodyLine / 240;
  return metrics.before + lines * metrics.size * fontLine * spacing + metrics.after;
}

/** A table part as the page sees it: the caption, the header row repeated on each page, the rows. */
export function tableItem(options: { text: TableText; part: TablePlan['parts'][number]; fontSize: number; width: number; padding: number }): FlowItem {
  const { text, part, fontSize, width, padding } = options;
  const measure = (row: string[]) =>
    rowHeight({ cells: part.columns.map((column) => row[column] ?? ''), widths: part.widths, fontSize, pointsPerUnit: 1, padX: padding / 2, padY: cellPadY });
  return {
    kind: 'rows',
    lead: paragraphHeight({ text: 'Caption', width, style: 'caption' }),
    header: measure(text.headers),
    rows: text.cells.map(measure),
  };
}

/** The natural height of a figure paragraph (its spacing before included) and its caption's. */
export function figureItem(options: { height: number; title: string | undefined; width: number }): FlowItem {
  const { height, title, width } = options;
  const caption = title === undefined ? 0 : paragraphHeight({ text: title, width, style: 'caption' });
  return { kind: 'figure', height: height + styleMetrics.caption.before + 2, caption };
}

/** A record block (layout "records"): the caption or gap before it, its key line, one line a field at the plan's two widths. */
export function recordItem(options: { text: TableText; plan: TablePlan; row: number; width: number; padding: number }): FlowItem {
  const { text, plan, row, width, padding } = options;
  const widths = plan.record?.widths ?? [0, 0];
  const key = plan.key ?? 0;
  const values = text.cells[row] ?? [];
  const measure = (cells: string[], at: number[]) =>
    rowHeight({ cells, widths: at, fontSize: plan.fontSize, pointsPerUnit: 1, padX: padding / 2, padY: cellPadY });
  return {
    kind: 'rows',
    lead: row === 0 ? paragraphHeight({ text: 'Caption', width, style: 'caption' }) : 7,
    header: measure([values[key] ?? ''], [widths[0] + widths[1]]),
    rows: text.headers.flatMap((header, column) => (column === key ? [] : [measure([header, values[column] ?? ''], widths)])),
  };
}
