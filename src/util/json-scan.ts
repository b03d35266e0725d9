/**
 * The character-level pieces of spillway's two JSON scanners (the spill's
 * element slicer and the streaming JSON-array row reader): character codes,
 * whitespace, and skipping a string's body. Both only find where values start
 * and end; JSON.parse does the parsing.
 */

export const jsonCode = {
  quote: 0x22,
  backslash: 0x5c,
  openBrace: 0x7b,
  closeBrace: 0x7d,
  openBracket: 0x5b,
  closeBracket: 0x5d,
  comma: 0x2c,
  colon: 0x3a,
  newline: 0x0a,
  carriageReturn: 0x0d,
} as const;

/** JSON's four whitespace characters. */
export function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === jsonCode.newline || code === jsonCode.carriageReturn || code === 0x09;
}

export function skipJsonWhitespace(text: string, index: number): number {
  while (index < text.length && isJsonWhitespace(text.charCodeAt(index))) index += 1;
  return index;
}

/** A backslash cut off at the end of one chunk escapes the first character of the next. */
export interface StringScan {
  escapePending: boolean;
}

/**
 * Skips a string's body from `index` (just after its opening quote, or at the
 * start of a chunk that continues it). Returns the index just past the closing
 * quote, or -1 when the text ends first (then `scan` carries a pending escape).
 */
export function skipStringBody(text: string, index: number, scan: StringScan): number {
  let i = index;
  if (scan.escapePending) {
    scan.escapePending = false;
    i += 1;
  }
  for (; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === jsonCode.quote) return i + 1;
    if (code === jsonCode.backslash) i += 1;
  }
  // A backslash as the last character: its escaped character is in the next chunk.
  if (i === text.length + 1) scan.escapePending = true;
  return -1;
}
