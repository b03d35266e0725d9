import { isSignedPlainText } from './signed-text.js';

/**
 * CSV cells as RFC 4180 text (comma, CRLF, fields with `"`, `,`, CR or LF quoted
 * and quotes doubled). Text that a spreadsheet would run as a formula (starting
 * with = @ tab or CR, or with + - and a call, reference or DDE link after it:
 * see signed-text.ts) gets a leading apostrophe; numbers are written as
 * numbers, so -5 stays -5. Nested values are written as JSON text.
 */
export function csvCell(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'string':
      return csvText(guardFormula(value));
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? '' : csvText(JSON.stringify(value));
    default:
      return '';
  }
}

/** The text as written, before quoting: an apostrophe in front of formula-like text. */
export function guardFormula(text: string): string {
  if (text.length === 0 || isSignedPlainText(text)) return text;
  const first = text.charCodeAt(0);
  // = + - @ TAB CR
  if (first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) return `'${text}`;
  return text;
}

const needsQuotes = /[",\r\n]/;

function csvText(text: string): string {
  if (!needsQuotes.test(text)) return text;
  return `"${text.replaceAll('"', '""')}"`;
}

/** A header or data row as one CSV line, CRLF included. */
export function csvLine(values: readonly unknown[]): string {
  let line = '';
  for (let index = 0; index < values.length; index += 1) {
    if (index > 0) line += ',';
    line += csvCell(values[index]);
  }
  return `${line}\r\n`;
}

/** Header cells are text too, and get the same guard. */
export function csvHeaderLine(headers: readonly string[]): string {
  return csvLine(headers);
}
