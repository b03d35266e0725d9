import { SpillwayError } from '../../errors.js';
import type { ColumnFormat } from './column-format.js';
import { defaultTimeZone, epochDate, parseIsoDate } from './iso-date.js';

export const defaultLocale = 'en-US';

/** Checks a BCP 47 locale tag against what this Node's Intl knows. */
export function checkLocale(locale: string, field = 'locale'): string {
  let known: string[] = [];
  try {
    known = Intl.NumberFormat.supportedLocalesOf(locale);
  } catch {
    known = [];
  }
  if (known.length === 0) {
    throw new SpillwayError(
      'FORMAT_INVALID',
      `${field} ${JSON.stringify(locale)} is not a locale this host knows; use a BCP 47 tag such as "en-US", "de-DE" or "fr-FR".`,
      {
        field,
        locale,
      },
    );
  }
  return locale;
}

/** A cell value as plain text when no format applies: nested values as JSON, empty as "". */
export function plainText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A function that turns a cell into the text a reader sees in DOCX, PPTX and
 * Markdown: numbers through Intl.NumberFormat, ISO dates through
 * Intl.DateTimeFormat, in the locale. Values the format does not fit (a word
 * in a number column) are shown as they are.
 */
export function displayFormatter(format: ColumnFormat, locale: string, timeZone = defaultTimeZone): (value: unknown) => string {
  switch (format.type) {
    case 'number':
    case 'percent':
    case 'currency': {
      const intl = new Intl.NumberFormat(locale, {
        minimumFractionDigits: format.decimals,
        maximumFractionDigits: format.decimals,
        ...(format.type === 'number' ? { useGrouping: format.thousands } : {}),
        ...(format.type === 'percent' ? { style: 'percent' } : {}),
        ...(format.type === 'currency' ? { style: 'currency', currency: format.currency } : {}),
      });
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? intl.format(value) : plainText(value));
    }
    case 'date':
    case 'datetime': {
      const intl = new Intl.DateTimeFormat(locale, {
        timeZone: 'UTC',
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        ...(format.type === 'datetime' ? { hour: '2-digit', minute: '2-digit' } : {}),
      });
      return (value) => {
        const date = dateOf(value, format, timeZone);
        return date === undefined ? plainText(value) : intl.format(date);
      };
    }
    case 'text':
      return plainText;
  }
}

/** The wall-clock time of a date cell (ISO text, or an epoch number in an epoch column) in `timeZone`. */
function dateOf(value: unknown, format: ColumnFormat, timeZone: string): Date | undefined {
  if (typeof value === 'string') return parseIsoDate(value, timeZone)?.date;
  if (typeof value === 'number' && format.type === 'datetime' && format.epoch !== undefined && Number.isFinite(value))
    return epochDate(value, format.epoch, timeZone);
  return undefined;
}

/** True for formats whose cells are right-aligned (numbers of any kind). */
export function isNumericFormat(format: ColumnFormat): boolean {
  return format.type === 'number' || format.type === 'percent' || format.type === 'currency';
}

function digits(decimals: number): string {
  return decimals > 0 ? `.${'0'.repeat(decimals)}` : '';
}

/** The date order of the locale as an Excel pattern, e.g. "m/d/yyyy" (en-US), "dd.mm.yyyy" (de-DE). */
function excelDatePattern(locale: string): string {
  const parts = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(
    new Date(Date.UTC(2026, 10, 23)),
  );
  const codes: Record<string, string> = { year: 'yyyy', month: 'mm', day: 'dd' };
  return parts.map((part) => codes[part.type] ?? (part.type === 'literal' ? part.value.replaceAll(/[^./\- ]/g, '') : '')).join('');
}

/**
 * The XLSX number format code. The separators in a code are placeholders that
 * Excel and LibreOffice show in the reader's own locale; the locale here picks
 * the date order and the currency symbol.
 */
export function excelNumberFormat(format: ColumnFormat, locale: string): string | undefined {
  switch (format.type) {
    case 'number':
      return `${format.thousands ? '#,##0' : '0'}${digits(format.decimals)}`;
    case 'percent':
      return `0${digits(format.decimals)}%`;
    case 'currency': {
      const parts = new Intl.NumberFormat(locale, { style: 'currency', currency: format.currency }).formatToParts(1);
      const symbol = (parts.find((part) => part.type === 'currency')?.value ?? format.currency).replaceAll('"', '');
      const number = `#,##0${digits(format.decimals)}`;
      const symbolFirst = parts.findIndex((part) => part.type === 'currency') < parts.findIndex((part) => part.type === 'integer');
      return symbolFirst ? `"${symbol}"${number}` : `${number} "${symbol}"`;
    }
    case 'date':
      return excelDatePattern(locale);
    case 'datetime':
      return `${excelDatePattern(locale)} hh:mm`;
    case 'text':
      return undefined;
  }
}

/** The value an XLSX cell holds: a Date for ISO text (or an epoch number) in a date column, in `timeZone`; else the value unchanged. */
export function excelValue(value: unknown, format: ColumnFormat, timeZone = defaultTimeZone): unknown {
  if (format.type === 'date' || format.type === 'datetime') return dateOf(value, format, timeZone) ?? value;
  return value;
}

/**
 * The CSV form of a value under a format the call named: decimals rounded,
 * dates as "2026-03-01" or "2026-03-01 09:30:00", which every spreadsheet
 * parses; never thousands separators or a currency sign, which would make the
 * number text. Inferred formats leave CSV values exactly as in the source.
 */
export function csvFormatter(format: ColumnFormat, timeZone = defaultTimeZone): ((value: unknown) => unknown) | undefined {
  switch (format.type) {
    case 'number':
    case 'currency':
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(format.decimals) : value);
    case 'percent':
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? `${(value * 100).toFixed(format.decimals)}%` : value);
    case 'date':
    case 'datetime':
      return (value) => {
        const date = dateOf(value, format, timeZone);
        if (date === undefined) return value;
        const iso = date.toISOString();
        return format.type === 'date' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
      };
    case 'text':
      return undefined;
  }
}
