import { wrappedLines } from './text-width.js';

/** Line height as a multiple of the font size (single spacing in Office and LibreOffice is about 1.17–1.2). */
const lineFactor = 1.22;

/**
 * Height of a table row in the unit of `padding` and `pointsPerUnit`: the
 * tallest cell, its text wrapped into its column (inner width = column width
 * minus horizontal padding).
 */
export function rowHeight(options: { cells: string[]; widths: number[]; fontSize: number; pointsPerUnit: number; padX: number; padY: number }): number {
  const { cells, widths, fontSize, pointsPerUnit, padX, padY } = options;
  let lines = 1;
  cells.forEach((text, column) => {
    const inner = ((widths[column] ?? 0) - 2 * padX) * pointsPerUnit;
    lines = Math.max(lines, wrappedLines(text, inner / fontSize));
  });
  return (lines * fontSize * lineFactor) / pointsPerUnit + 2 * padY;
}

/**
 * Splits rows into pages whose rows (plus the repeated header) fit `available`
 * height: [first, end) index pairs. A row taller than a whole page gets a page
 * to itself; callers cap cell text so that never happens in practice.
 */
export function pageRows(options: { heights: number[]; header: number; available: number; maxRows?: number }): [number, number][] {
  const { heights, header, available } = options;
  const maxRows = options.maxRows ?? Number.POSITIVE_INFINITY;
  const pages: [number, number][] = [];
  let first = 0;
  let used = header;
  for (let index = 0; index < heights.length; index += 1) {
    const height = heights[index] ?? 0;
    if (index > first && (used + height > available || index - first >= maxRows)) {
      pages.push([first, index]);
      first = index;
      used = header;
    }
    used += height;
  }
  pages.push([first, heights.length]);
  return pages;
}

/**
 * `text` cut with "…" so that it wraps into at most `maxLines` lines of
 * `widthEms`, at a word boundary when one is near; unchanged when it fits.
 */
export function cutToLines(text: string, widthEms: number, maxLines: number): string {
  if (wrappedLines(text, widthEms) <= maxLines) return text;
  const chars = Array.from(text);
  // The longest prefix that fits (with the ellipsis), found by bisection: lines grow with the prefix.
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (wrappedLines(`${chars.slice(0, middle).join('')}…`, widthEms) <= maxLines) low = middle;
    else high = middle - 1;
  }
  let cut = chars.slice(0, low).join('');
  const space = cut.lastIndexOf(' ');
  if (space > cut.length * 0.8) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}
