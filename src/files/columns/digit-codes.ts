/**
 * Codes a spreadsheet would turn into numbers when it opens a CSV: digit
 * strings with a leading zero ("000123", ZIP "02134") lose the zeros, and
 * digit strings over 15 digits lose their tail (a 20-digit ID). XLSX keeps
 * them as text cells; a CSV can only hold the characters.
 */
const leadingZero = /^0\d+$/;
const longDigits = /^\d{16,}$/;

/** The columns (by index) holding such a code among `rows`, each with one example. */
export function digitCodeColumns(rows: readonly unknown[][], columnCount: number): { column: number; example: string }[] {
  const found: { column: number; example: string }[] = [];
  for (let column = 0; column < columnCount; column += 1) {
    for (const row of rows) {
      const value = row[column];
      if (typeof value === 'string' && (leadingZero.test(value) || longDigits.test(value))) {
        found.push({ column, example: value });
        break;
      }
    }
  }
  return found;
}

/** The note a CSV export carries for such columns: the file keeps them, a spreadsheet would not; XLSX does. */
export function digitCodesNote(headers: readonly string[], found: readonly { column: number; example: string }[]): string | undefined {
  if (found.length === 0) return undefined;
  const names = found.map((entry) => `"${headers[entry.column] ?? ''}" (e.g. ${entry.example})`).join(', ');
  return `${names} hold${found.length === 1 ? 's' : ''} codes with leading zeros or more than 15 digits. The CSV keeps them exactly, but a spreadsheet that opens a CSV turns them into numbers (02134 becomes 2134); for people who open the file in Excel or LibreOffice, export as XLSX, where they stay text.`;
}
