/**
 * Estimated widths of text in a proportional sans font (Calibri, Liberation
 * Sans, Arial), without loading a font: each character counts by its class,
 * in ems. The classes err wide, so text measured to fit does fit.
 */

const narrow = new Set("iljtfrI.,;:'!|()[]{} ");
const wide = new Set('mwMWOQGDHNUC@%&');

function charEms(code: number, char: string): number {
  if (code >= 0x2e80) return 1; // CJK, Hangul, full-width forms: one em each
  if (narrow.has(char)) return 0.32;
  if (wide.has(char)) return 0.86;
  if (code >= 65 && code <= 90) return 0.68; // other capitals
  if (code >= 48 && code <= 57) return 0.56;
  return 0.54;
}

/** Width of `text` in ems (multiply by the font size in points for points). */
export function textEms(text: string): number {
  let ems = 0;
  for (const char of text) ems += charEms(char.codePointAt(0) ?? 0, char);
  return ems;
}

/** Width of the longest unbreakable word, in ems: the narrowest a column may get without splitting a word. */
export function longestWordEms(text: string): number {
  let longest = 0;
  for (const word of text.split(/\s+/)) longest = Math.max(longest, textEms(word));
  return longest;
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
      const space = used > 0 ? charEms(32, ' ') : 0;
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
