/** Invisible characters that can hide text from a reader while a model still reads it. */
export type InvisibleKind = 'unicode-tags' | 'bidi-control' | 'zero-width-run';

/**
 * Tag characters (U+E0000–U+E007F: ASCII smuggled invisibly), bidi embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069: text shown in another
 * order than it is read), and runs of two or more zero-width characters (a lone
 * ZWJ inside an emoji sequence is ordinary text). A fixed character class: linear.
 */
const invisible = /[\u{E0000}-\u{E007F}]+|[\u202A-\u202E\u2066-\u2069]+|[\u200B-\u200F\u2060-\u2064\uFEFF]{2,}/gu;
const anyInvisible = /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069]|[\u200B-\u200F\u2060-\u2064\uFEFF]{2}/u;

/**
 * {@link hasInvisible}'s test in RE2 syntax, for the screening prefilter's one
 * pass (row-prefilter.ts): V8 scans a 10 MB text for this class at ~3 ns a
 * character even when it holds none (~31 ms, more than the whole RE2 pass).
 */
export const anyInvisibleRe2 = '[\\x{E0000}-\\x{E007F}\\x{202A}-\\x{202E}\\x{2066}-\\x{2069}]|[\\x{200B}-\\x{200F}\\x{2060}-\\x{2064}\\x{FEFF}]{2}';

export interface InvisibleMatch {
  kind: InvisibleKind;
  start: number;
  end: number;
}

/** Quick test before the full scan. */
export function hasInvisible(text: string): boolean {
  return anyInvisible.test(text);
}

export function findInvisible(text: string): InvisibleMatch[] {
  const found: InvisibleMatch[] = [];
  for (const match of text.matchAll(invisible)) {
    const first = match[0].codePointAt(0) ?? 0;
    const kind: InvisibleKind =
      first >= 0xe0000 ? 'unicode-tags' : (first >= 0x202a && first <= 0x202e) || (first >= 0x2066 && first <= 0x2069) ? 'bidi-control' : 'zero-width-run';
    found.push({ kind, start: match.index, end: match.index + match[0].length });
  }
  return found;
}

/** Each invisible character written as `<U+XXXX>`, so the model reads what is there instead of being steered by it. */
export function escapeInvisible(text: string): string {
  return text.replace(invisible, (run) => [...run].map((char) => `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`).join(''));
}
