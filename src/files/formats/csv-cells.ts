import { neutralizeFormula, splitsIntoFormula } from './formula-guard.js';

/**
 * CSV cells as RFC 4180 text (comma, CRLF, fields with `"`, `,`, CR or LF quoted
 * and quotes doubled). Text that a spreadsheet would run as a formula (starting
 * with = + - @, tab or CR, or their full-width and small-form look-alikes) gets
 * a leading apostrophe, and text another reader's delimiter would split into a
 * formula (`a;=cmd`) is quoted; numbers are written as
 * numbers, so -5 stays -5. Nested values are written as JSON text.
 */
export function csvCell(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'string':
      return csvText(guardFormula(value), splitsIntoFormula(value));
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
  return neutralizeFormula(text);
}

const needsQuotes = /[",\r\n]/;

/** `force`: quoted even without a comma, so a reader splitting on ";" (or TAB, "|") cannot cut a formula out of it. */
function csvText(text: string, force = false): string {
  if (!force && !needsQuotes.test(text)) return text;
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
