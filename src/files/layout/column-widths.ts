import { longestWordEms, textEms } from './text-width.js';

/**
 * Column widths from content for a table of `available` width units (points,
 * twips, inches: any unit, widths are proportional). Each column wants its
 * widest cell (header included) and needs at least its longest word; when the
 * wants do not fit, the columns that want the most give up width first, never
 * below their need (unless even the needs do not fit, then all shrink alike).
 * `cells[column]` are the display texts of a sample of rows.
 */
export function columnWidths(options: {
  headers: string[];
  cells: string[][];
  available: number;
  fontSize: number;
  padding: number;
  maxWantEms?: number;
}): number[] {
  const { headers, cells, available, fontSize, padding } = options;
  const maxWantEms = options.maxWantEms ?? 40;
  const want = headers.map((header, column) => {
    let ems = textEms(header);
    for (const text of cells[column] ?? []) ems = Math.max(ems, Math.min(maxWantEms, textEms(text)));
    return ems * fontSize + padding;
  });
  const need = headers.map((header, column) => {
    let ems = Math.min(longestWordEms(header), 12);
    for (const text of cells[column] ?? []) ems = Math.max(ems, Math.min(longestWordEms(text), 18));
    return Math.min(ems * fontSize + padding, want[column] ?? 0);
  });
  const totalWant = want.reduce((sum, width) => sum + width, 0);
  if (totalWant <= available) return want.map((width) => (width * available) / totalWant);
  const totalNeed = need.reduce((sum, width) => sum + width, 0);
  if (totalNeed >= available) return need.map((width) => (width * available) / totalNeed);
  // Water-filling: find the cap c such that sum(max(need, min(want, c))) = available.
  let low = 0;
  let high = Math.max(...want);
  for (let step = 0; step < 50; step += 1) {
    const cap = (low + high) / 2;
    const total = want.reduce((sum, width, column) => sum + Math.max(need[column] ?? 0, Math.min(width, cap)), 0);
    if (total > available) high = cap;
    else low = cap;
  }
  const widths = want.map((width, column) => Math.max(need[column] ?? 0, Math.min(width, low)));
  const total = widths.reduce((sum, width) => sum + width, 0);
  return widths.map((width) => (width * available) / total);
}

/** The total width the columns would like, to decide on landscape pages. */
export function wantedWidth(options: { headers: string[]; cells: string[][]; fontSize: number; padding: number; maxWantEms?: number }): number {
  const maxWantEms = options.maxWantEms ?? 40;
  return options.headers.reduce((sum, header, column) => {
    let ems = textEms(header);
    for (const text of options.cells[column] ?? []) ems = Math.max(ems, Math.min(maxWantEms, textEms(text)));
    return sum + ems * options.fontSize + options.padding;
  }, 0);
}
