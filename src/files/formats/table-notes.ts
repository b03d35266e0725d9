import { SpillwayError } from '../../errors.js';

/** A source with no rows and no header: there is nothing to put in a file. */
export function emptyTableError(source: string): SpillwayError {
  return new SpillwayError('NOT_A_TABLE', `${source} has no rows and no columns, so there is nothing to export. Check the query that produced it.`, {
    path: source,
    rows: 0,
  });
}

/** Characters a cell of XLSX/DOCX/PPTX can hold: XML 1.0 forbids most control characters, so they are dropped. */
const xmlForbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const xmlForbiddenAll = new RegExp(xmlForbidden.source, 'g');

export function xmlSafeText(text: string): string {
  return xmlForbidden.test(text) ? text.replace(xmlForbiddenAll, '') : text;
}

/** A cell value as display text for documents and Markdown: nested values as JSON, empty as "". */
export function displayText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Columns a table aligns right (DOCX, PPTX, Markdown): there are rows, and every cell is a number or empty. */
export function numericColumns(columnCount: number, rows: unknown[][]): boolean[] {
  return Array.from({ length: columnCount }, (_, index) => rows.length > 0 && rows.every((row) => row[index] === null || typeof row[index] === 'number'));
}
