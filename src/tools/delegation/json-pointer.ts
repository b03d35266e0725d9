import { SpillwayError } from '../../errors.js';

/** Splits an RFC 6901 JSON Pointer ("/items/0/body") into unescaped segments. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new SpillwayError(
      'FILE_REF_INVALID',
      `The JSON Pointer ${JSON.stringify(pointer)} must be empty or start with "/", e.g. "/0/body" or "/items/2/title".`,
      { pointer },
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Builds a pointer from segments (the inverse of {@link parseJsonPointer}). */
export function formatJsonPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export type PointerLookup = { found: true; value: unknown } | { found: false; at: string; reason: string };

/**
 * The value at `segments` inside `document`. Own properties only (never
 * `__proto__` or inherited members); array indexes are decimal without leading
 * zeros. A miss says where it stopped and what was there instead.
 */
export function lookupJsonPointer(document: unknown, segments: readonly string[]): PointerLookup {
  let current = document;
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index] as string;
    const at = formatJsonPointer(segments.slice(0, index + 1));
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment))
        return { found: false, at, reason: `"${segment}" is not an array index (the array has ${current.length} items, 0–${current.length - 1})` };
      const position = Number(segment);
      if (position >= current.length) return { found: false, at, reason: `index ${position} is past the end (the array has ${current.length} items)` };
      current = current[position];
    } else if (typeof current === 'object' && current !== null) {
      if (!Object.hasOwn(current, segment)) {
        const keys = Object.keys(current);
        return {
          found: false,
          at,
          reason: `no member "${segment}"${keys.length > 0 ? ` (members: ${keys.slice(0, 20).join(', ')}${keys.length > 20 ? ', …' : ''})` : ' (the object is empty)'}`,
        };
      }
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false, at, reason: `the value there is ${current === null ? 'null' : typeof current}, which has no members` };
    }
  }
  return { found: true, value: current };
}
