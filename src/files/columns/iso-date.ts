import { SpillwayError } from '../../errors.js';

/** A date or timestamp read from ISO 8601 text (or an epoch number). */
export interface IsoDate {
  /**
   * The wall-clock time a reader sees, held as a UTC instant (spreadsheets
   * have no time zones): text without an offset as written; text with one
   * ("Z", "+02:00") converted to the stated zone, so a column mixing offsets
   * sorts by the real instant.
   */
  date: Date;
  hasTime: boolean;
  /** The offset the text carried: "Z", a numeric one ("+02:00"), or none. */
  offset: 'Z' | 'numeric' | 'none';
}

/** The zone timestamps with offsets are shown in unless a call names another. */
export const defaultTimeZone = 'UTC';

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses "2026-03-01", "2026-03-01T09:30", "2026-03-01 09:30:00.123Z", "…+02:00";
 * anything else (or an impossible date) is undefined. A timestamp with an
 * offset becomes the wall-clock time in `timeZone` (default UTC).
 */
export function parseIsoDate(text: string, timeZone = defaultTimeZone): IsoDate | undefined {
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
  const written = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(written).getUTCDate() !== day) return undefined;
  const hasTime = match[4] !== undefined;
  const zone = match[8];
  if (zone === undefined) return { date: new Date(written), hasTime, offset: 'none' };
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.replace(/[^\d]/g, '');
  const offsetMinutes = zone === 'Z' ? 0 : sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0));
  if (Math.abs(offsetMinutes) > 18 * 60) return undefined;
  return { date: wallClock(written - offsetMinutes * 60_000, timeZone), hasTime, offset: zone === 'Z' ? 'Z' : 'numeric' };
}

/** Epoch seconds or milliseconds as the wall-clock time in `timeZone`. */
export function epochDate(value: number, unit: 'seconds' | 'milliseconds', timeZone = defaultTimeZone): Date {
  return wallClock(unit === 'seconds' ? value * 1000 : value, timeZone);
}

const zoneClocks = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `instant` (ms) in `timeZone`, held as a UTC instant. */
function wallClock(instant: number, timeZone: string): Date {
  if (timeZone === 'UTC') return new Date(instant);
  let clock = zoneClocks.get(timeZone);
  if (clock === undefined) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneClocks.set(timeZone, clock);
  }
  const parts = Object.fromEntries(clock.formatToParts(new Date(instant)).map((part) => [part.type, Number(part.value)]));
  const millis = ((instant % 1000) + 1000) % 1000;
  return new Date(Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, millis));
}

/** Checks an IANA time zone name ("UTC", "Europe/Berlin", "America/New_York") against this Node's Intl. */
export function checkTimeZone(timeZone: string, field = 'timeZone'): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    throw new SpillwayError(
      'FORMAT_INVALID',
      `${field} ${JSON.stringify(timeZone)} is not a time zone this host knows; use an IANA name such as "UTC", "Europe/Berlin" or "America/New_York".`,
      { field, timeZone },
    );
  }
}
