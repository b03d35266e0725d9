/** Invisible characters that can hide text from a reader while a model still reads it. */
export type InvisibleKind = 'unicode-tags' | 'bidi-control' | 'zero-width-run';

/**
 * Tag characters (U+E0000–U+E007F: ASCII smuggled invisibly), bidi embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069: text shown in another
 * order than it is read), runs of two or more zero-width characters (a lone
 * ZWJ inside an emoji sequence is ordinary text), and a lone zero-width space or
 * word joiner inside a Latin word. Fixed character classes: linear.
 * The ranges are written once; the JavaScript patterns and the RE2 one are made from them.
 */
const tagRanges: [number, number][] = [[0xe0000, 0xe007f]];
const bidiRanges: [number, number][] = [
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];
const zeroWidthRanges: [number, number][] = [
  [0x200b, 0x200f],
  [0x2060, 0x2064],
  [0xfeff, 0xfeff],
];

/** A character class of the ranges, each code point written by `escape` (JavaScript `\u{…}`, RE2 `\x{…}`). */
function characterClass(ranges: [number, number][], escape: (codePoint: number) => string): string {
  return `[${ranges.map(([from, to]) => (from === to ? escape(from) : `${escape(from)}-${escape(to)}`)).join('')}]`;
}
const js = (codePoint: number) => `\\u{${codePoint.toString(16)}}`;
const re2 = (codePoint: number) => `\\x{${codePoint.toString(16)}}`;

/**
 * A zero-width space, word joiner or BOM alone inside a Latin word ("ign\u200Bore") splits
 * the word for every rule while the model reads it whole. Unlike ZWJ and ZWNJ (U+200C,
 * U+200D: emoji sequences, Indic conjuncts), these have no place between two Latin letters.
 */
const wordSplitters: [number, number][] = [
  [0x200b, 0x200b],
  [0x2060, 0x2060],
  [0xfeff, 0xfeff],
];

const invisible = new RegExp(
  `${characterClass(tagRanges, js)}+|${characterClass(bidiRanges, js)}+|${characterClass(zeroWidthRanges, js)}{2,}|(?<=[A-Za-z])${characterClass(wordSplitters, js)}(?=[A-Za-z])`,
  'gu',
);
const anyInvisible = new RegExp(
  `${characterClass([...tagRanges, ...bidiRanges], js)}|${characterClass(zeroWidthRanges, js)}{2}|[A-Za-z]${characterClass(wordSplitters, js)}[A-Za-z]`,
  'u',
);

/**
 * {@link hasInvisible}'s test in RE2 syntax, for the screening prefilter's one
 * pass (row-prefilter.ts), so V8 need not scan a long text for these classes
 * beside RE2's pass over it.
 */
export const anyInvisibleRe2 = `${characterClass([...tagRanges, ...bidiRanges], re2)}|${characterClass(zeroWidthRanges, re2)}{2}|[A-Za-z]${characterClass(wordSplitters, re2)}[A-Za-z]`;

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
