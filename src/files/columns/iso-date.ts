/** A date or timestamp read from ISO 8601 text. */
export interface IsoDate {
  /**
   * The wall-clock time as written, held as a UTC instant: a reader of
   * "2026-03-01T10:00:00+02:00" expects to see 10:00, and spreadsheets have no
   * time zones. The offset itself is dropped.
   */
  date: Date;
  hasTime: boolean;
}

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Parses "2026-03-01", "2026-03-01T09:30", "2026-03-01 09:30:00.123Z", "…+02:00"; anything else (or an impossible date) is undefined. */
export function parseIsoDate(text: string): IsoDate | undefined {
  if (text.length < 10 || text.length > 40) return undefined;
  const match = isoPattern.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((index) => Number(match[index] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = match[7] === undefined ? 0 : Math.round(Number(`0.${match[7]}`) * 1000);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  if (date.getUTCDate() !== day) return undefined;
  return { date, hasTime: match[4] !== undefined };
}
