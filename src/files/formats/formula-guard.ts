/**
 * What a spreadsheet would run as a formula when it opens a CSV cell: text
 * starting with = + - @ (or TAB / CR), including the full-width and
 * small-form look-alikes (＝ ＋ － ＠, ﹦ ﹢ ﹣ ﹫) that some spreadsheets
 * normalise to ASCII, after any leading spaces.
 */
const trigger = /^[ ]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/;

/**
 * A separator that a reader with another delimiter (a semicolon-separated
 * locale, a tab- or pipe-separated import) splits on, followed by a trigger:
 * `a;=cmd` is one harmless cell to a comma reader and a formula `=cmd` to a
 * semicolon reader.
 */
const splitTrigger = /[;,\t|][ "']*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/;

/** Text a spreadsheet would run as a formula: the cell gets a leading apostrophe. */
export function startsLikeFormula(text: string): boolean {
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
