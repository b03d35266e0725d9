/**
 * Cutting a result to the inline budget without ever showing half a record or
 * skipping one: the prefix stops at the first record that does not fit.
 */

export interface RecordPrefix {
  /** The records that fit, joined with the brackets closed: always parses. */
  text: string;
  /** How many whole records it holds (they are the first `count`, in order). */
  count: number;
}

/**
 * Joins the first records that fit in `budget` units (as measured by `measure`)
 * between `open` and `close`. `records` are already-serialized JSON values.
 */
export function wholeRecordPrefix(
  records: readonly string[],
  budget: number,
  options: { open?: string; close?: string; separator?: string; measure?: (text: string) => number } = {},
): RecordPrefix {
  const { open = '[', close = ']', separator = ',', measure = (text: string) => text.length } = options;
  let used = measure(open) + measure(close);
  const separatorSize = measure(separator);
  let count = 0;
  for (const record of records) {
    const size = measure(record) + (count > 0 ? separatorSize : 0);
    if (used + size > budget) break;
    used += size;
    count += 1;
  }
  return { text: open + records.slice(0, count).join(separator) + close, count };
}

export interface LinePrefix {
  text: string;
  /** Whole lines kept. */
  lines: number;
  /** True when not even the first line fit and it was cut inside. */
  cutInsideLine: boolean;
}

/** Whole lines that fit; when the first line alone is too long, its start, cut on a code point. */
export function wholeLinePrefix(text: string, budget: number, measure: (text: string) => number = (t) => t.length): LinePrefix {
  let end = 0;
  let lines = 0;
  let used = 0;
  while (end < text.length) {
    const newline = text.indexOf('\n', end);
    const next = newline === -1 ? text.length : newline + 1;
    const size = measure(text.slice(end, next));
    if (used + size > budget) break;
    used += size;
    end = next;
    lines += 1;
  }
  if (lines > 0 || text.length === 0) return { text: text.slice(0, end), lines, cutInsideLine: false };
  return { text: cutOnCodePoint(text, budget, measure), lines: 0, cutInsideLine: true };
}

function cutOnCodePoint(text: string, budget: number, measure: (text: string) => number): string {
  // Binary search the longest prefix within budget, then step back off a lone high surrogate.
  let low = 0;
  let high = Math.min(text.length, budget * 4);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(text.slice(0, middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  let end = low;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
