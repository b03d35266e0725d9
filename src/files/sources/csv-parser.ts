import { SpillwayError } from '../../errors.js';

const quote = 34;
const comma = 44;
const lf = 10;
const cr = 13;

/** A parsed CSV record and the line it started on (1-based), for messages. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * A streaming RFC 4180 parser: comma-separated, fields optionally quoted with
 * `"` and `""` for a quote inside; CRLF, LF or CR line ends; line breaks inside
 * quoted fields. Lenient where the RFC is silent: a quote inside an unquoted
 * field, or text after a closing quote, is kept literally. Feed chunks with
 * `push`, then call `end`.
 */
export class CsvParser {
  private field = '';
  private fields: string[] = [];
  private state: 'start' | 'plain' | 'quoted' | 'quote-in-quoted' = 'start';
  private afterCr = false;
  private line = 1;
  private recordLine = 1;

  constructor(private readonly name: string) {}

  push(chunk: string): CsvRecord[] {
    const records: CsvRecord[] = [];
    let fieldStart = -1;
    const flushPlain = (end: number) => {
      if (fieldStart !== -1) {
        this.field += chunk.slice(fieldStart, end);
        fieldStart = -1;
      }
    };
    for (let index = 0; index < chunk.length; index += 1) {
      const code = chunk.charCodeAt(index);
      if (this.afterCr) {
        this.afterCr = false;
        if (code === lf) continue;
      }
      if (this.state === 'quoted') {
        if (code === quote) {
          flushPlain(index);
          this.state = 'quote-in-quoted';
        } else {
          if (code === lf || (code === cr && chunk.charCodeAt(index + 1) !== lf)) this.line += 1;
          if (fieldStart === -1) fieldStart = index;
        }
        continue;
      }
      if (this.state === 'quote-in-quoted') {
        if (code === quote) {
          this.field += '"';
          this.state = 'quoted';
          continue;
        }
        // The quoted part is over: this character ends the field, or is kept as text.
        this.state = 'plain';
      }
      if (code === comma) {
        flushPlain(index);
        this.endField();
      } else if (code === lf || code === cr) {
        flushPlain(index);
        this.endField();
        records.push({ fields: this.fields, line: this.recordLine });
        this.fields = [];
        this.line += 1;
        this.recordLine = this.line;
        if (code === cr) this.afterCr = true;
      } else if (code === quote && this.state === 'start') {
        this.state = 'quoted';
      } else {
        this.state = 'plain';
        if (fieldStart === -1) fieldStart = index;
      }
    }
    flushPlain(chunk.length);
    return records;
  }

  end(): CsvRecord[] {
    if (this.state === 'quoted') {
      throw new SpillwayError('NOT_A_TABLE', `${this.name} ends inside a quoted field that starts on line ${this.recordLine}; the CSV is cut short or has an unbalanced quote.`, {
        path: this.name,
        line: this.recordLine,
      });
    }
    if (this.state === 'start' && this.fields.length === 0 && this.field === '') return [];
    this.endField();
    const record = { fields: this.fields, line: this.recordLine };
    this.fields = [];
    return [record];
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = '';
    this.state = 'start';
  }
}

const numberPattern = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * A CSV field as a value: empty is null; a plain decimal number becomes a number
 * unless that would lose digits (long identifiers stay text); anything else,
 * including "007" and "true", stays text.
 */
export function csvFieldValue(field: string): unknown {
  if (field.length === 0) return null;
  const first = field.charCodeAt(0);
  if ((first < 48 || first > 57) && first !== 45) return field;
  if (!numberPattern.test(field)) return field;
  const value = Number(field);
  if (!Number.isFinite(value)) return field;
  const integerDigits = field.replace(/^-/, '').split(/[.eE]/)[0] ?? '';
  if (integerDigits.length > 15 && !/[.eE]/.test(field)) return field;
  return value;
}
