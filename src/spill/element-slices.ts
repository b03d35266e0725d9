/**
 * The exact source text of each element of a JSON array, so a table that
 * arrived as JSON text can be written as JSONL without serializing every row
 * again (the costliest step of a large spill). The source must already have
 * passed JSON.parse; anything unexpected returns undefined and the caller
 * falls back to JSON.stringify.
 */

import { isJsonWhitespace, jsonCode, skipJsonWhitespace as skipWhitespace, skipStringBody } from '../util/json-scan.js';

const { quote, openBrace, closeBrace, openBracket, closeBracket, comma, colon, newline, carriageReturn } = jsonCode;

/** Where a value ends, and whether it spans lines (line breaks between its tokens). */
interface ValueEnd {
  end: number;
  multiline: boolean;
}

/**
 * Scans the value starting at `index` in one tight loop. (Calling indexOf per
 * string cost more than it saved, rows hold many short strings; a regex for
 * flat rows was faster but can backtrack badly on long escape runs.)
 */
function scanValue(source: string, index: number, result: ValueEnd): boolean {
  const length = source.length;
  const string = { escapePending: false };
  let depth = 0;
  let multiline = false;
  for (let i = index; i < length; i += 1) {
    const code = source.charCodeAt(i);
    if (code === quote) {
      const after = skipStringBody(source, i + 1, string);
      if (after === -1) return false;
      if (depth === 0) return done(result, after, multiline);
      i = after - 1;
    } else if (code === openBrace || code === openBracket) {
      depth += 1;
    } else if (code === closeBrace || code === closeBracket) {
      if (depth === 0) return done(result, i, multiline);
      depth -= 1;
      if (depth === 0) return done(result, i + 1, multiline);
    } else if (depth === 0) {
      if (code === comma || isJsonWhitespace(code)) return done(result, i, multiline);
    } else if (code === newline || code === carriageReturn) {
      // JSON strings cannot hold a raw line break, so this is whitespace between tokens.
      multiline = true;
    }
  }
  return depth === 0 ? done(result, length, multiline) : false;
}

function done(result: ValueEnd, end: number, multiline: boolean): true {
  result.end = end;
  result.multiline = multiline;
  return true;
}

/** Index of the value of the last member named `key` of the object at `index`, or -1. */
function findMember(source: string, index: number, key: string): number {
  const scanned: ValueEnd = { end: 0, multiline: false };
  let found = -1;
  let i = skipWhitespace(source, index + 1);
  if (source.charCodeAt(i) === closeBrace) return -1;
  for (;;) {
    if (source.charCodeAt(i) !== quote || !scanValue(source, i, scanned)) return -1;
    const name = JSON.parse(source.slice(i, scanned.end)) as string;
    i = skipWhitespace(source, scanned.end);
    if (source.charCodeAt(i) !== colon) return -1;
    i = skipWhitespace(source, i + 1);
    // JSON.parse keeps the last of duplicate keys, so the last one is the one parsed.
    if (name === key) found = i;
    if (!scanValue(source, i, scanned)) return -1;
    i = skipWhitespace(source, scanned.end);
    const code = source.charCodeAt(i);
    if (code === closeBrace) return found;
    if (code !== comma) return -1;
    i = skipWhitespace(source, i + 1);
  }
}

/**
 * The elements of the top-level array of `source`, or of its top-level
 * object's member `rowsKey`, as slices of the source (no copies). An element
 * that spans lines (pretty-printed) is `undefined`: it cannot be a JSONL line as is.
 */
export function elementSlices(source: string, rowsKey?: string): (string | undefined)[] | undefined {
  let i = skipWhitespace(source, 0);
  if (rowsKey !== undefined) {
    if (source.charCodeAt(i) !== openBrace) return undefined;
    i = findMember(source, i, rowsKey);
    if (i === -1) return undefined;
  }
  if (source.charCodeAt(i) !== openBracket) return undefined;
  const slices: (string | undefined)[] = [];
  const scanned: ValueEnd = { end: 0, multiline: false };
  i = skipWhitespace(source, i + 1);
  if (source.charCodeAt(i) === closeBracket) return slices;
  for (;;) {
    if (!scanValue(source, i, scanned)) return undefined;
    slices.push(scanned.multiline ? undefined : source.slice(i, scanned.end));
    i = skipWhitespace(source, scanned.end);
    const code = source.charCodeAt(i);
    if (code === closeBracket) return slices;
    if (code !== comma) return undefined;
    i = skipWhitespace(source, i + 1);
  }
}
