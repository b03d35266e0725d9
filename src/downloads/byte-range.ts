/** One satisfiable byte range, inclusive at both ends (as Content-Range writes it). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A `Range` header against a file of `size` bytes (RFC 9110 § 14): one range
 * of `bytes=a-b`, `bytes=a-` or `bytes=-n`, clamped to the file. "ignore" for
 * a header that is absent, malformed, not in bytes, or asks for several
 * ranges (the whole file is sent, as the RFC allows); "unsatisfiable" when
 * the range lies past the end (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'ignore' | 'unsatisfiable' {
  if (header === undefined) return 'ignore';
  const match = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(header);
  if (match === null) return 'ignore';
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return 'ignore';
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || end < start) return 'ignore';
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
