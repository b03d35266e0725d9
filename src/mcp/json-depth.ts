// The bytes the scan looks at are all ASCII, so none of them is ever part of a multi-byte UTF-8 character.
const quote = 0x22;
const backslash = 0x5c;
const openSquare = 0x5b;
const closeSquare = 0x5d;
const openCurly = 0x7b;
const closeCurly = 0x7d;

export interface JsonDepthScan {
  /** Scans the next chunk of the text; false once the nesting is deeper than the limit (the rest need not be read). */
  feed(chunk: Uint8Array): boolean;
  /** The deepest nesting seen so far: 0 for a scalar, 1 for `[]` or `{}`, 2 for `[[]]`. */
  deepest(): number;
}

/**
 * A linear, non-recursive scan of JSON text, fed in chunks, that tracks how
 * deeply arrays and objects nest (brackets inside strings do not count;
 * escapes are honoured, also across chunk boundaries). It does not validate:
 * JSON.parse does that once the scan has shown the nesting is bounded, so
 * neither the parser nor what walks the parsed value afterwards (the MCP SDK's
 * schema checks recurse) meets a body of millions of nested brackets.
 */
export function jsonDepthScan(limit: number): JsonDepthScan {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  let escaped = false;
  return {
    feed(chunk) {
      // An indexed loop over plain comparisons: a 16 MiB body scans in tens of milliseconds.
      for (let index = 0; index < chunk.length; index += 1) {
        const byte = chunk[index];
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === backslash) escaped = true;
          else if (byte === quote) inString = false;
        } else if (byte === quote) {
          inString = true;
        } else if (byte === openSquare || byte === openCurly) {
          depth += 1;
          if (depth > deepest) deepest = depth;
          if (depth > limit) return false;
        } else if ((byte === closeSquare || byte === closeCurly) && depth > 0) {
          depth -= 1;
        }
      }
      return true;
    },
    deepest: () => deepest,
  };
}
