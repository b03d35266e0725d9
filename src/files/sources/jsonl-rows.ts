import { SpillwayError } from '../../errors.js';
import { formatCount } from '../../util/format.js';

/** Lines longer than this are refused rather than buffered without bound. */
export const maxJsonlLineChars = 64 * 1024 * 1024;

/**
 * Turns text chunks of a JSONL file into batches of row objects (one batch per
 * chunk, so callers pay one await per ~1 MiB, not per row). Blank lines are
 * skipped; a line that is not JSON, or not a JSON object, stops the read with
 * an error naming its line number.
 */
export async function* jsonlRows(chunks: AsyncIterable<string>, name: string): AsyncGenerator<Record<string, unknown>[]> {
  let carry = '';
  let lineNumber = 0;
  for await (const chunk of chunks) {
    const text = carry.length > 0 ? carry + chunk : chunk;
    const batch: Record<string, unknown>[] = [];
    let start = 0;
    let newline = text.indexOf('\n', start);
    while (newline !== -1) {
      lineNumber += 1;
      const row = parseLine(text, start, newline, lineNumber, name);
      if (row !== undefined) batch.push(row);
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    carry = start === 0 ? text : text.slice(start);
    if (carry.length > maxJsonlLineChars) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `Line ${formatCount(lineNumber + 1)} of ${name} is longer than ${formatCount(maxJsonlLineChars)} characters; a table row that large is refused.`,
        {
          path: name,
          line: lineNumber + 1,
        },
      );
    }
    if (batch.length > 0) yield batch;
  }
  if (carry.length > 0) {
    lineNumber += 1;
    const row = parseLine(carry, 0, carry.length, lineNumber, name);
    if (row !== undefined) yield [row];
  }
}

/** One line as a row object; undefined for a blank line. Throws INVALID_JSON / NOT_A_TABLE naming the line. */
export function parseLine(text: string, start: number, end: number, lineNumber: number, name: string): Record<string, unknown> | undefined {
  if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
  if (end === start) return undefined;
  const line = text.slice(start, end);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    if (line.trim() === '') return undefined;
    throw new SpillwayError(
      'INVALID_JSON',
      `Line ${formatCount(lineNumber)} of ${name} is not valid JSON (${(error as Error).message}): ${preview(line)}. A JSONL table needs one JSON object per line; fix or remove that line, or run the query again.`,
      { path: name, line: lineNumber },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SpillwayError(
      'NOT_A_TABLE',
      `Line ${formatCount(lineNumber)} of ${name} holds ${describeJsonValue(value)}, not a row object; a table needs one JSON object per line.`,
      { path: name, line: lineNumber },
    );
  }
  return value as Record<string, unknown>;
}

export function preview(text: string, max = 120): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

export function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
