import { CsvError, parse } from 'csv-parse';
import { SpillwayError } from '../../errors.js';

/** A parsed CSV record and the line it started on (1-based), for messages. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * Reads CSV text with csv-parse, streaming: one chunk is parsed at a time and
 * its records handed out as one batch, so memory stays at a chunk and its
 * records. RFC 4180 with CRLF, LF or CR line ends, mixed, and line breaks
 * inside quoted fields. Lenient where the RFC is silent: a quote inside an
 * unquoted field, or text after a closing quote, is kept literally, and
 * records may have any number of fields (the caller checks them against the
 * header). An empty line is a record of one empty field.
 */
export async function* csvRecords(chunks: AsyncIterable<string>, name: string): AsyncGenerator<CsvRecord[]> {
  let nextLine = 1;
  let parsed: CsvRecord[] = [];
  const parser = parse({ record_delimiter: ['\r\n', '\n', '\r'], relax_quotes: true, relax_column_count: true });
  // Records arrive as their chunk is parsed. Their lines are counted here, from the line breaks
  // inside their fields (csv-parse's own count takes a CRLF inside quotes for two lines).
  parser.on('data', (fields: string[]) => {
    parsed.push({ fields, line: nextLine });
    nextLine += 1 + lineBreaksIn(fields);
  });
  // Errors arrive through the write and end callbacks below.
  parser.on('error', () => undefined);
  try {
    for await (const chunk of chunks) {
      await new Promise<void>((resolve, reject) => parser.write(chunk, (error) => (error ? reject(error) : resolve())));
      if (parsed.length > 0) {
        const batch = parsed;
        parsed = [];
        yield batch;
      }
    }
    await new Promise<void>((resolve, reject) => {
      parser.once('error', reject);
      // 'end' comes after the last record was handed to the 'data' listener.
      parser.once('end', resolve);
      parser.end();
    });
  } catch (error) {
    throw csvError(error, name, nextLine);
  } finally {
    parser.destroy();
  }
  if (parsed.length > 0) yield parsed;
}

/** Line breaks inside a record's fields (CRLF, CR or LF, each one line). */
function lineBreaksIn(fields: string[]): number {
  let breaks = 0;
  for (const field of fields) {
    if (field.includes('\n') || field.includes('\r')) breaks += field.match(/\r\n?|\n/g)?.length ?? 0;
  }
  return breaks;
}

function csvError(error: unknown, name: string, line: number): unknown {
  if (!(error instanceof CsvError)) return error;
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    return new SpillwayError(
      'NOT_A_TABLE',
      `${name} ends inside a quoted field that starts on line ${line}; the CSV is cut short or has an unbalanced quote.`,
      {
        path: name,
        line,
      },
    );
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
