/**
 * Text that starts with "+" or "-" but that no spreadsheet would evaluate to
 * anything but itself or a number: a phone number (`+4915112345678`), a
 * signed figure, a dash note (`-- see ticket 4471`). A formula that does harm
 * needs a function call (`+HYPERLINK(…)`, `-SUM(…)`), a reference to a cell or
 * sheet (`-A1`, `+Sheet1!B2`) or a DDE link (`-2+3+cmd|' /C calc'!A0`); text
 * with none of those is written unchanged.
 */
const evaluable = /[A-Za-z_\u00C0-\uFFFF][\w.\u00C0-\uFFFF]*\s*\(|[|!]|(?:^|[^A-Za-z])\$?[A-Za-z]{1,3}\$?\d/;

export function isSignedPlainText(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first !== 43 && first !== 45) return false;
  return !evaluable.test(text.slice(1));
}
