/**
 * Estimated widths of text in a proportional sans font (Calibri, Liberation
 * Sans, Arial), without loading a font: each character counts by its class,
 * in ems. The classes err wide, so text measured to fit does fit. They are
 * Arial-like widths whatever documents.fontFamily names: a narrower family
 * (Calibri, Times New Roman) fits all the more, a wider one (Verdana, DejaVu
 * Sans) may not, and the result says so (../formats/font-family.ts).
 */

const narrow = new Set("iljtfrI.,;:'!|()[]{} ");
const wide = new Set('mwMWOQGDHNUC@%&');

const marks = /^\p{M}$/u;

/** Marks, joiners, variation selectors and skin tones: drawn on or between the characters around them, no width of their own. */
function isZeroWidth(code: number, char: string): boolean {
  return (
    (code >= 0x200b && code <= 0x200f) ||
    code === 0x2060 ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0x1f3fb && code <= 0x1f3ff) ||
    (code >= 0xe0100 && code <= 0xe01ef) ||
    marks.test(char)
  );
}
/** Pictographs (emoji) from U+2300 on (below it ©, ® and ™ are text): Noto Color Emoji draws them about 1.25 em wide. */
const pictographs = /^\p{Extended_Pictographic}$/u;

function isPictograph(code: number, char: string): boolean {
  return code >= 0x2300 && pictographs.test(char);
}
/**
 * East Asian wide and full-width characters (Hangul, CJK ideographs, kana,
 * full-width forms): one em each, about two average Latin characters.
 */
const eastAsianWide =
  /^[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFD}]$/u;
/** Chinese and Japanese text breaks between any two of these (Korean breaks at spaces, like Latin). */
const breaksAround = /([\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uFF00-\uFF60\u{20000}-\u{3FFFD}])/u;

/** How a character is drawn: no width of its own, one em (East Asian wide), an emoji, or as proportional text. */
type CharKind = 'zero' | 'eastAsian' | 'pictograph' | 'text';

function charKind(code: number, char: string): CharKind {
  if (code < 0x80) return 'text';
  if (isZeroWidth(code, char)) return 'zero';
  if (eastAsianWide.test(char)) return 'eastAsian';
  if (isPictograph(code, char)) return 'pictograph';
  return 'text';
}

function kindEms(kind: CharKind, code: number, char: string): number {
  switch (kind) {
    case 'zero':
      return 0;
    case 'eastAsian':
      return 1;
    case 'pictograph':
      return 1.25;
    case 'text':
      return latinEms(code, char);
  }
}

const zeroWidthJoiner = 0x200d;

function isRegionalIndicator(code: number): boolean {
  return code >= 0x1f1e6 && code <= 0x1f1ff;
}

/**
 * Each character of `text` with its kind, emoji sequences drawn as one: a
 * pictograph a zero-width joiner ties to the one before (👨‍👩‍👧, 🏳️‍🌈) and the
 * second regional indicator of a flag (🇯🇵) have no width of their own.
 */
function* measuredChars(text: string): Generator<{ kind: CharKind; code: number; char: string }> {
  let joined = false;
  let flagOpen = false;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    let kind = charKind(code, char);
    if (isRegionalIndicator(code)) {
      kind = flagOpen ? 'zero' : 'pictograph';
      flagOpen = !flagOpen;
    } else flagOpen = false;
    if (joined && kind === 'pictograph') kind = 'zero';
    joined = code === zeroWidthJoiner;
    yield { kind, code, char };
  }
}

function latinEms(code: number, char: string): number {
  if (narrow.has(char)) return 0.32;
  if (wide.has(char)) return 0.86;
  if (code >= 65 && code <= 90) return 0.68; // other capitals
  if (code >= 48 && code <= 57) return 0.56;
  return 0.54;
}

/** Width of `text` in ems (multiply by the font size in points for points). */
export function textEms(text: string): number {
  let ems = 0;
  for (const { kind, code, char } of measuredChars(text)) ems += kindEms(kind, code, char);
  return ems;
}

/**
 * Width of the longest unbreakable word, in ems: the narrowest a column may
 * get without splitting a word. Chinese and Japanese text may break between
 * any two characters, so each of them is a word of its own.
 */
export function longestWordEms(text: string): number {
  let longest = 0;
  for (const word of text.split(/\s+/)) for (const piece of word.split(breaksAround)) longest = Math.max(longest, textEms(piece));
  return longest;
}

/**
 * Width of the longest piece of `text` a column should keep on one line: its
 * longest word ({@link longestWordEms}), and a Chinese or Japanese run without
 * a space up to `keepEms` (a company name, a city): such a run may break
 * between any two characters, but "北京星辰科技有限公" over "司" reads as badly
 * as a Latin word split in two.
 */
export function longestKeptEms(text: string, keepEms: number): number {
  let longest = 0;
  for (const word of text.split(/\s+/)) longest = Math.max(longest, longestWordEms(word), Math.min(textEms(word), keepEms));
  return longest;
}

/**
 * Width of `text` in the character cells of a fixed grid (Excel's column
 * width unit, about one digit): wide East Asian characters and emoji take
 * two, marks and joiners none, everything else one.
 */
export function displayCells(text: string): number {
  let cells = 0;
  for (const { kind } of measuredChars(text)) cells += kind === 'zero' ? 0 : kind === 'text' ? 1 : 2;
  return cells;
}

/**
 * Lines `text` takes when wrapped at word boundaries into `widthEms`; a word
 * longer than the line is broken (as Word, LibreOffice and PowerPoint do).
 */
export function wrappedLines(text: string, widthEms: number): number {
  if (widthEms <= 0) return Number.POSITIVE_INFINITY;
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    lines += 1;
    let used = 0;
    for (const word of paragraph.split(' ')) {
      const ems = textEms(word);
      const space = used > 0 ? latinEms(32, ' ') : 0;
      if (used + space + ems <= widthEms) {
        used += space + ems;
        continue;
      }
      if (used > 0) lines += 1;
      if (ems <= widthEms) {
        used = ems;
        continue;
      }
      // A word wider than the line fills whole lines, the rest starts the next.
      const full = Math.floor(ems / widthEms);
      lines += full - (ems % widthEms === 0 ? 1 : 0);
      used = ems - full * widthEms;
    }
  }
  return lines;
}
