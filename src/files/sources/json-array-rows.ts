import { SpillwayError } from '../../errors.js';
import { formatCount } from '../../util/format.js';
import { isJsonWhitespace, jsonCode, skipStringBody } from '../../util/json-scan.js';
import { describeJsonValue, maxJsonlLineChars, preview } from './jsonl-rows.js';
import { parseJsonOrFail } from '../../util/parse-json.js';

const { openBrace, closeBrace, openBracket, closeBracket, quote, comma } = jsonCode;

/**
 * Streams the elements of a top-level JSON array of objects in batches. The
 * scanner only finds where each element starts and ends (tracking strings and
 * nesting) and hands each element to JSON.parse, so memory stays at one
 * element plus one chunk however long the array is.
 */
export async function* jsonArrayRows(chunks: AsyncIterable<string>, name: string): AsyncGenerator<Record<string, unknown>[]> {
  let phase: 'before' | 'between' | 'element' | 'after' = 'before';
  let expectElement = true;
  let depth = 0;
  let inString = false;
  const string = { escapePending: false };
  let pieces: string[] = [];
  let pieceChars = 0;
  let index = 0;

  const fail = (message: string): never => {
    throw new SpillwayError('INVALID_JSON', `${name} is not a valid JSON array of rows: ${message}`, { path: name, item: index + 1 });
  };

  for await (const chunk of chunks) {
    const batch: Record<string, unknown>[] = [];
    let elementStart = phase === 'element' ? 0 : -1;
    for (let at = 0; at < chunk.length; at += 1) {
      const code = chunk.charCodeAt(at);
      if (phase === 'element') {
        if (inString || code === quote) {
          // A string continued from the last chunk, or starting here: skip its body.
          const after = skipStringBody(chunk, inString ? at : at + 1, string);
          inString = after === -1;
          at = inString ? chunk.length : after - 1;
          continue;
        }
        if (code === openBrace || code === openBracket) depth += 1;
        else if (code === closeBrace || code === closeBracket) {
          depth -= 1;
          if (depth === 0) {
            pieces.push(chunk.slice(elementStart, at + 1));
            const text = pieces.join('');
            pieces = [];
            pieceChars = 0;
            batch.push(parseElement(text, index, name));
            index += 1;
            phase = 'between';
            expectElement = false;
            elementStart = -1;
          }
        }
        continue;
      }
      if (isJsonWhitespace(code)) continue;
      if (phase === 'before') {
        if (code !== openBracket) fail(`it must start with "[" (an array of objects)`);
        phase = 'between';
        expectElement = true;
      } else if (phase === 'between') {
        if (code === closeBracket) {
          if (expectElement && index > 0) fail(`a comma before "]" after item ${formatCount(index)}`);
          phase = 'after';
        } else if (code === comma) {
          if (expectElement) fail(`an unexpected comma before item ${formatCount(index + 1)}`);
          expectElement = true;
        } else if (!expectElement) {
          fail(`a comma is missing after item ${formatCount(index)}`);
        } else if (code === openBrace) {
          phase = 'element';
          depth = 1;
          elementStart = at;
        } else {
          throw new SpillwayError(
            'NOT_A_TABLE',
            `Item ${formatCount(index + 1)} of the array in ${name} is not an object; a table is an array of row objects.`,
            {
              path: name,
              item: index + 1,
            },
          );
        }
      } else {
        fail('there is more text after the closing "]"');
      }
    }
    if (phase === 'element') {
      const piece = chunk.slice(elementStart === -1 ? 0 : elementStart);
      pieces.push(piece);
      pieceChars += piece.length;
      if (pieceChars > maxJsonlLineChars) {
        throw new SpillwayError(
          'RESULT_TOO_LARGE',
          `Item ${formatCount(index + 1)} of ${name} is longer than ${formatCount(maxJsonlLineChars)} characters; a row that large is refused.`,
          {
            path: name,
            item: index + 1,
          },
        );
      }
    }
    if (batch.length > 0) yield batch;
  }
  const finalPhase = phase as string;
  if (finalPhase === 'before') fail('the file is empty');
  if (finalPhase !== 'after') fail(`it ends before the closing "]" (after item ${formatCount(index)})`);
}

function parseElement(text: string, index: number, name: string): Record<string, unknown> {
  const value = parseJsonOrFail(text, (reason) => `Item ${formatCount(index + 1)} of the array in ${name} is not valid JSON (${reason}): ${preview(text)}.`, {
    path: name,
    item: index + 1,
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SpillwayError('NOT_A_TABLE', `Item ${formatCount(index + 1)} of ${name} is ${describeJsonValue(value)}, not a row object.`, {
      path: name,
      item: index + 1,
    });
  }
  return value as Record<string, unknown>;
}
