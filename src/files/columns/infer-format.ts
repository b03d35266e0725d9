import { SpillwayError } from '../../errors.js';
import type { ColumnFormat, EpochUnit } from './column-format.js';
import { parseIsoDate } from './iso-date.js';

/**
 * Names that mark a column of whole numbers as an identifier, a code or a
 * year: shown without thousands separators (`2026`, not `2,026`).
 */
const identifierName = /(^|[_\s.-])(id|code|year|zip|postcode|postal|phone|number|no|nr|key|ref|version)$|^(id|year)$|[a-z](Id|Code|Year|Key|Ref|No)$/i;

/** Names that mark a column as a point in time: created_at, updated_ms, event_time, ts, timestamp, createdAt. */
const timeName =
  /(^|[_\s.-])(at|ts|time|timestamp|epoch|ms|millis|seconds|secs|date|on)$|^(ts|time|timestamp|epoch|created|updated|modified)$|[a-z](At|Ts|Time|Timestamp|Ms|Epoch)$/i;

/** Epoch ranges taken as times: 2001-09-09 to 2100 in seconds or milliseconds. */
const epochRanges: Record<EpochUnit, [number, number]> = { seconds: [1e9, 4.1e9], milliseconds: [1e12, 4.1e12] };

/** The epoch unit every value fits, if one does. */
export function epochUnit(values: readonly number[]): EpochUnit | undefined {
  if (values.length === 0) return undefined;
  for (const unit of ['seconds', 'milliseconds'] as const) {
    const [low, high] = epochRanges[unit];
    if (values.every((value) => Number.isInteger(value) && value >= low && value < high)) return unit;
  }
  return undefined;
}

/** Decimals for a column of fractions: 2, or up to 4 when every value is below 1 (rates, shares). */
function fractionDecimals(values: number[]): number {
  return values.every((value) => Math.abs(value) < 1) ? 4 : 2;
}

/**
 * The format a column gets when the call names none, from a sample of its
 * values: numbers stay exact but are shown with fixed decimals, ISO dates and
 * timestamps become dates, everything else (identifiers in strings, mixed
 * columns, booleans, nested values) stays text.
 */
export function inferFormat(name: string, values: readonly unknown[]): ColumnFormat {
  const numbers: number[] = [];
  let strings = 0;
  let dates = 0;
  let withTime = 0;
  let other = 0;
  for (const value of values) {
    if (value === null || value === undefined || value === '') continue;
    if (typeof value === 'number') numbers.push(value);
    else if (typeof value === 'string') {
      strings += 1;
      const parsed = parseIsoDate(value);
      if (parsed !== undefined) {
        dates += 1;
        if (parsed.hasTime) withTime += 1;
      }
    } else other += 1;
  }
  if (other > 0) return { type: 'text' };
  if (numbers.length > 0 && strings === 0) {
    if (numbers.every((value) => Number.isInteger(value))) {
      // Epoch numbers: a time when the name says so, else plain digits (1772355600000, never 1,772,355,600,000).
      const epoch = epochUnit(numbers);
      if (epoch !== undefined && timeName.test(name)) return { type: 'datetime', epoch };
      return { type: 'number', decimals: 0, thousands: epoch === undefined && !identifierName.test(name) };
    }
    return { type: 'number', decimals: fractionDecimals(numbers), thousands: true };
  }
  if (strings > 0 && numbers.length === 0 && dates === strings) return withTime > 0 ? { type: 'datetime' } : { type: 'date' };
  return { type: 'text' };
}

/**
 * Refuses a format the column's values cannot take: a number format on words,
 * a date format on text that is not an ISO date. Empty cells fit every format;
 * a text format fits everything.
 */
export function checkFormatFits(options: { column: string; format: ColumnFormat; values: readonly unknown[] }): void {
  const { column, format, values } = options;
  if (format.type === 'text') return;
  const wantsDate = format.type === 'date' || format.type === 'datetime';
  for (const value of values) {
    if (value === null || value === undefined || value === '') continue;
    const fits = wantsDate
      ? (typeof value === 'string' && parseIsoDate(value) !== undefined) || (typeof value === 'number' && epochUnit([value]) !== undefined)
      : typeof value === 'number';
    if (fits) continue;
    const shown = typeof value === 'string' ? value.slice(0, 60) : JSON.stringify(value)?.slice(0, 60);
    const expected = wantsDate ? 'ISO dates such as "2026-03-01" or "2026-03-01T09:30:00Z" (or epoch seconds or milliseconds)' : 'numbers';
    throw new SpillwayError(
      'FORMAT_MISMATCH',
      `Column "${column}" cannot take the format "${format.type}": it needs ${expected}, and the column holds ${JSON.stringify(shown)}. Use "text", leave the format out to have it inferred, or convert the values with query_sql first.`,
      { column, format: format.type, value: shown },
    );
  }
}
