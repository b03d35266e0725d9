import { pipeline, Readable } from 'node:stream';
import { CsvError, parse, type Options } from 'csv-parse';
import { SpillwayError } from '../../errors.js';

/** A parsed CSV record and the line it started on (1-based), for messages. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** Records handed out together (one `yield` each). */
const batchRecords = 4096;

/**
 * Reads CSV text with csv-parse, streaming (constant memory, backpressure on
 * the chunks): RFC 4180 with CRLF, LF or CR line ends, mixed, and line breaks
 * inside quoted fields. Lenient where the RFC is silent: a quote inside an
 * unquoted field, or text after a closing quote, is kept literally, and
 * records may have any number of fields (the caller checks them against the
 * header). An empty line is a record of one empty field.
 */
export async function* csvRecords(chunks: AsyncIterable<string>, name: string): AsyncGenerator<CsvRecord[]> {
  let nextLine = 1;
  // Called as each record is parsed, before it is queued: the line count is exact even when a later error drops the queue.
  const withLine = (fields: string[], context: { lines: number }): CsvRecord => {
    const record = { fields, line: nextLine };
    nextLine = context.lines + 1;
    return record;
  };
  const parser = parse({
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: true,
    relax_column_count: true,
    // csv-parse's non-generic overload types records as string[]; this one turns them into CsvRecords.
    on_record: withLine as unknown as Options['on_record'],
  });
  // The parser's iterator reports a read error too; ending the iteration early ends the read.
  pipeline(Readable.from(chunks, { highWaterMark: 1 }), parser, () => undefined);
  let batch: CsvRecord[] = [];
  try {
    for await (const record of parser as AsyncIterable<CsvRecord>) {
      batch.push(record);
      if (batch.length === batchRecords) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    throw csvError(error, name, nextLine);
  } finally {
    parser.destroy();
  }
  if (batch.length > 0) yield batch;
}

function csvError(error: unknown, name: string, line: number): unknown {
  if (!(error instanceof CsvError)) return error;
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    return new SpillwayError('NOT_A_TABLE', `${name} ends inside a quoted field that starts on line ${line}; the CSV is cut short or has an unbalanced quote.`, {
      path: name,
      line,
    });
  }
  return new SpillwayError('NOT_A_TABLE', `${name} is not readable as CSV near line ${line} (${error.message}).`, { path: name, line });
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
