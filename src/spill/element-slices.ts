/**
 * The exact source text of each element of a JSON array, so a table that
 * arrived as JSON text can be written as JSONL without serializing every row
 * again (the costliest step of a large spill). The source must already have
 * passed JSON.parse; anything unexpected returns undefined and the caller
 * falls back to JSON.stringify.
 */

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const colon = 0x3a;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipWhitespace(source: string, index: number): number {
  while (index < source.length && isWhitespace(source.charCodeAt(index))) index += 1;
  return index;
}

/** Index just past the string whose opening quote is at `index`. */
function skipString(source: string, index: number): number {
  let from = index + 1;
  for (;;) {
    const end = source.indexOf('"', from);
    if (end === -1) return -1;
    let backslashes = 0;
    while (source.charCodeAt(end - 1 - backslashes) === backslash) backslashes += 1;
    if (backslashes % 2 === 0) return end + 1;
    from = end + 1;
  }
}

/** Index just past the value that starts at `index` (a container, string or scalar). */
function skipValue(source: string, index: number): number {
  let depth = 0;
  for (let i = index; i < source.length; i += 1) {
    const code = source.charCodeAt(i);
    if (code === quote) {
      i = skipString(source, i);
      if (i === -1) return -1;
      if (depth === 0) return i;
      i -= 1;
    } else if (code === openBrace || code === openBracket) {
      depth += 1;
    } else if (code === closeBrace || code === closeBracket) {
      if (depth === 0) return i;
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (code === comma || isWhitespace(code))) {
      return i;
    }
  }
  return depth === 0 ? source.length : -1;
}

/** Index of the value of the last member named `key` of the object at `index`, or -1. */
function findMember(source: string, index: number, key: string): number {
  let found = -1;
  let i = skipWhitespace(source, index + 1);
  if (source.charCodeAt(i) === closeBrace) return -1;
  for (;;) {
    if (source.charCodeAt(i) !== quote) return -1;
    const keyEnd = skipString(source, i);
    if (keyEnd === -1) return -1;
    const name = JSON.parse(source.slice(i, keyEnd)) as string;
    i = skipWhitespace(source, keyEnd);
    if (source.charCodeAt(i) !== colon) return -1;
    i = skipWhitespace(source, i + 1);
    // JSON.parse keeps the last of duplicate keys, so the last one is the one parsed.
    if (name === key) found = i;
    i = skipValue(source, i);
    if (i === -1) return -1;
    i = skipWhitespace(source, i);
    const code = source.charCodeAt(i);
    if (code === closeBrace) return found;
    if (code !== comma) return -1;
    i = skipWhitespace(source, i + 1);
  }
}

/**
 * The elements of the top-level array of `source`, or of its top-level
 * object's member `rowsKey`, as slices of the source (no copies).
 */
export function elementSlices(source: string, rowsKey?: string): string[] | undefined {
  let i = skipWhitespace(source, 0);
  if (rowsKey !== undefined) {
    if (source.charCodeAt(i) !== openBrace) return undefined;
    i = findMember(source, i, rowsKey);
    if (i === -1) return undefined;
  }
  if (source.charCodeAt(i) !== openBracket) return undefined;
  const slices: string[] = [];
  i = skipWhitespace(source, i + 1);
  if (source.charCodeAt(i) === closeBracket) return slices;
  for (;;) {
    const end = skipValue(source, i);
    if (end === -1) return undefined;
    slices.push(source.slice(i, end));
    i = skipWhitespace(source, end);
    const code = source.charCodeAt(i);
    if (code === closeBracket) return slices;
    if (code !== comma) return undefined;
    i = skipWhitespace(source, i + 1);
  }
}

/** True when a JSON text spans lines (pretty-printed): it cannot be one JSONL line as is. */
export function hasLineBreak(text: string): boolean {
  // JSON strings cannot hold a raw line break, so any is whitespace between tokens.
  return text.includes('\n') || text.includes('\r');
}
