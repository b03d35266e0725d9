import { longestWordEms, textEms } from './text-width.js';

/**
 * Column widths from content for a table of at most `available` width units (points,
 * twips, inches: any unit, widths are proportional). Each column wants its
 * widest cell (header included) and needs at least its longest word; when the
 * wants do not fit, each column gets its need and a share of the rest in
 * proportion to what it still wants (unless even the needs do not fit, then
 * all shrink alike).
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
  const want = columnWants(options);
  const need = headers.map((header, column) => {
    // Headers are bold: a tenth wider.
    let ems = Math.min(longestWordEms(header) * 1.1, 14);
    for (const text of cells[column] ?? []) ems = Math.max(ems, Math.min(longestWordEms(text), 18));
    return Math.min(ems * fontSize + padding, want[column] ?? 0);
  });
  const totalWant = want.reduce((sum, width) => sum + width, 0);
  // A narrow table keeps about its natural width (a little air, never stretched across the page).
  if (totalWant <= available) return want.map((width) => width * Math.min(1.2, available / totalWant));
  const totalNeed = need.reduce((sum, width) => sum + width, 0);
  if (totalNeed >= available) return need.map((width) => (width * available) / totalNeed);
  // Every column gets what it needs, and the rest is shared in proportion to what each still wants:
  // a long note column gets most of it, so few rows grow tall.
  const share = (available - totalNeed) / (totalWant - totalNeed);
  return want.map((width, column) => (need[column] ?? 0) + (width - (need[column] ?? 0)) * share);
}

/** What each column would like: its widest cell or bold header (a tenth wider), long texts counted up to `maxWantEms`. */
function columnWants(options: { headers: string[]; cells: string[][]; fontSize: number; padding: number; maxWantEms?: number }): number[] {
  const maxWantEms = options.maxWantEms ?? 40;
  return options.headers.map((header, column) => {
    let ems = textEms(header) * 1.1;
    for (const text of options.cells[column] ?? []) ems = Math.max(ems, Math.min(maxWantEms, textEms(text)));
    return ems * options.fontSize + options.padding;
  });
}

/** The total width the columns would like, to decide on landscape pages. */
export function wantedWidth(options: { headers: string[]; cells: string[][]; fontSize: number; padding: number; maxWantEms?: number }): number {
  return columnWants(options).reduce((sum, width) => sum + width, 0);
}
