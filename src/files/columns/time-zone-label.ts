import type { ColumnFormat } from './column-format.js';
import { defaultTimeZone, parseIsoDate } from './iso-date.js';

/**
 * The time columns whose values were moved into the stated zone: epoch
 * numbers, and timestamps with offsets other than the zone's own (a column
 * of "…Z" values shown in UTC is as written). Their headers name the zone.
 */
export function zonedColumns(options: { formats: readonly ColumnFormat[]; rows: readonly unknown[][]; timeZone?: string }): boolean[] {
  const timeZone = options.timeZone ?? defaultTimeZone;
  return options.formats.map((format, column) => {
    if (format.type !== 'datetime') return false;
    if (format.epoch !== undefined) return true;
    return options.rows.some((row) => {
      const value = row[column];
      if (typeof value !== 'string') return false;
      const offset = parseIsoDate(value)?.offset ?? 'none';
      return offset === 'numeric' || (offset === 'Z' && timeZone !== 'UTC');
    });
  });
}

/** A header with its zone: "created_at (UTC)". */
export function zonedHeader(header: string, timeZone = defaultTimeZone): string {
  return `${header} (${timeZone})`;
}

/** The note a result carries when time columns were converted to one zone. */
export function zoneNote(options: { headers: readonly string[]; zoned: readonly boolean[]; timeZone?: string; where: string }): string | undefined {
  const timeZone = options.timeZone ?? defaultTimeZone;
  const names = options.headers.filter((_, column) => options.zoned[column] === true).map((header) => `"${header}"`);
  if (names.length === 0) return undefined;
  return `${options.where}: the times in ${names.join(', ')} (UTC offsets or epoch numbers) are shown in ${timeZone}, and the header${names.length === 1 ? ' says' : 's say'} so; pass timeZone (an IANA name such as "Europe/Berlin") for another zone.`;
}
