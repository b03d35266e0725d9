import { longestKeptEms, longestWordEms, textEms } from './text-width.js';

/**
 * Words up to this many ems (about 25 characters: a 20-digit ID, an ISO
 * timestamp, an amount with its currency) are never broken; a longer token
 * (a URL, a hash) may wrap inside.
 */
const maxNeedEms = 14;
/** A Chinese or Japanese run up to this many ems (ten ideographs: a company name, an address) is kept on one line. */
const keepRunEms = 10;
/** Header words are bold (a tenth wider) and may wrap sooner: at most this many ems decide a column's need. */
const maxHeaderNeedEms = 12;
/** The estimate errs wide, and this slack covers what it does not (kerning, a renderer's rounding): 3% and a point. */
const needSlack = { factor: 1.03, points: 1 };

export interface ColumnMeasures {
  /** What each column would like: its widest cell (long texts counted up to `maxWantEms`). */
  want: number[];
  /**
   * What each column needs so that no word it holds breaks: its longest token (at most `maxNeedEms`;
   * a CJK run counts up to `keepRunEms`), never more than `want`.
   */
  need: number[];
}

/**
 * Measures columns in the unit of `fontSize` and `padding` (points, usually).
 * `cells[column]` are the display texts: give every row, not a sample, or the
 * one longer ID in row 4,000 wraps.
 */
export function measureColumns(options: { headers: string[]; cells: string[][]; fontSize: number; padding: number; maxWantEms?: number }): ColumnMeasures {
  const { headers, cells, fontSize, padding } = options;
  const maxWantEms = options.maxWantEms ?? 40;
  const want: number[] = [];
  const need: number[] = [];
  headers.forEach((header, column) => {
    let wantEms = textEms(header) * 1.1;
    let needEms = Math.min(longestWordEms(header) * 1.1, maxHeaderNeedEms);
    for (const text of cells[column] ?? []) {
      wantEms = Math.max(wantEms, Math.min(maxWantEms, textEms(text)));
      if (needEms < maxNeedEms) needEms = Math.max(needEms, Math.min(longestKeptEms(text, keepRunEms), maxNeedEms));
    }
    const wantWidth = wantEms * needSlack.factor * fontSize + padding + needSlack.points;
    want.push(wantWidth);
    need.push(Math.min(needEms * needSlack.factor * fontSize + padding + needSlack.points, wantWidth));
  });
  return { want, need };
}

/**
 * Column widths from content for a table of at most `available` width units
 * (points, twips, inches: widths are proportional). Each column wants its
 * widest cell (header included) and needs at least its longest word; when the
 * wants do not fit, each column gets its need and a share of the rest in
 * proportion to what it still wants. When even the needs do not fit, all
 * shrink alike: callers plan wide tables (see table-plan.ts) so that this
 * last resort does not happen.
 */
export function columnWidths(options: {
  headers: string[];
  cells: string[][];
  available: number;
  fontSize: number;
  padding: number;
  maxWantEms?: number;
}): number[] {
  return widthsFrom(measureColumns(options), options.available);
}

/** {@link columnWidths} from measures already taken. */
export function widthsFrom(measures: ColumnMeasures, available: number): number[] {
  const { want, need } = measures;
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

/** The total width the columns would like, to decide on landscape pages. */
export function wantedWidth(options: { headers: string[]; cells: string[][]; fontSize: number; padding: number; maxWantEms?: number }): number {
  return measureColumns(options).want.reduce((sum, width) => sum + width, 0);
}
