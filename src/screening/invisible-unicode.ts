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
