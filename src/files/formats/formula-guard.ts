/**
 * What may stand before a formula's first character without a reader seeing
 * it: spaces of every width (JS `\s`: tab, CR, LF, NBSP, U+2000–U+200A,
 * U+202F, U+205F, U+3000, the BOM, ...), control characters, and the
 * invisible format characters (soft hyphen, zero-width space and joiners,
 * direction marks and isolates, word joiner, variation selectors, Hangul
 * fillers, tag characters). LibreOffice 7.4 runs `=` only as a cell's first
 * character (or after plain spaces, when its import trims them), but a program
 * between the file and the spreadsheet may trim more (`String.trim` strips
 * NBSP and the BOM) and turn `\u00A0=cmd` into `=cmd`: the guard looks past
 * the whole run.
 */
const invisible = [
  '[\\s\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u115F\\u1160\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFEFF\\uFFA0]',
  // Combining marks on their own: in one class with the others they would read as one combined character.
  '\\u034F',
  '[\\u17B4-\\u17B5]',
  '[\\uFE00-\\uFE0F]',
  // Tag characters U+E0000–U+E007F, as UTF-16 pairs.
  '\\uDB40[\\uDC00-\\uDC7F]',
].join('|');

/** = + - @ TAB CR, and the full-width and small-form look-alikes (＝ ＋ － ＠, ﹦ ﹢ ﹣ ﹫) that some spreadsheets normalise to ASCII. */
const triggers = '[=+\\-@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20\\uFE66\\uFE62\\uFE63\\uFE6B]';

/** What a spreadsheet would run as a formula when it opens a CSV cell: a trigger, after any invisible run. */
const trigger = new RegExp(`^(?:${invisible})*${triggers}`);

/**
 * A separator that a reader with another delimiter (a semicolon-separated
 * locale, a tab- or pipe-separated import) splits on, followed by a trigger:
 * `a;=cmd` is one harmless cell to a comma reader and a formula `=cmd` to a
 * semicolon reader. Quotes, apostrophes and the invisible run may stand between.
 */
const splitTrigger = new RegExp(`[;,\\t|](?:[ "']|${invisible})*${triggers}`);

/** Text a spreadsheet would run as a formula: the cell gets a leading apostrophe. */
export function startsLikeFormula(text: string): boolean {
  // Most cells start with a letter or a digit, which neither trigger nor hide one: no regex run for them.
  const first = text.charCodeAt(0);
  if ((first >= 0x41 && first <= 0x7e) || (first >= 0x30 && first <= 0x39)) return false;
  return trigger.test(text);
}

/**
 * Text that another reader's delimiter would split into a formula: the cell
 * is quoted whatever the writer's own delimiter, so every CSV reader keeps it
 * whole (and the part after the separator never starts a cell).
 */
export function splitsIntoFormula(text: string): boolean {
  return splitTrigger.test(text);
}

/** The cell's text as written, before quoting: an apostrophe in front of formula-like text. */
export function neutralizeFormula(text: string): string {
  return startsLikeFormula(text) ? `'${text}` : text;
}
