import { SpillwayError } from '../../errors.js';
import { formatCount } from '../../util/format.js';

/** Excel's sheet limit: 1,048,576 rows, the header row included. */
export const excelSheetRowLimit = 1_048_576;

/** Excel's sheet width: 16,384 columns (A to XFD); exceljs throws past it. */
export const excelSheetColumnLimit = 16_384;

/** Excel's cell limit: longer text is cut (Excel would refuse to open the file otherwise). */
export const excelCellCharLimit = 32_767;

/** Data rows one sheet holds under a row limit that counts the header (never more than Excel's). */
export function dataRowsPerSheet(sheetRowLimit: number): number {
  if (!Number.isSafeInteger(sheetRowLimit) || sheetRowLimit < 2 || sheetRowLimit > excelSheetRowLimit)
    throw new RangeError(`sheet row limit must be an integer from 2 to ${excelSheetRowLimit} (got ${sheetRowLimit})`);
  return sheetRowLimit - 1;
}

/** Sheets needed for `dataRows` rows, each sheet with its own header row. */
export function sheetsNeeded(dataRows: number, sheetRowLimit: number = excelSheetRowLimit): number {
  return Math.max(1, Math.ceil(dataRows / dataRowsPerSheet(sheetRowLimit)));
}

/**
 * The refusal of a selection wider than a sheet, before a byte is written:
 * rows over the limit go on further sheets, columns cannot.
 */
export function tooWideForSheet(facts: { source: string; columns: number }): SpillwayError {
  const { source, columns } = facts;
  return new SpillwayError(
    'COLUMN_LIMIT',
    `An XLSX sheet holds at most ${formatCount(excelSheetColumnLimit)} columns (Excel's limit), and this selection of ${source} has ${formatCount(columns)}; nothing was written. Name the columns the reader needs with columns (e.g. ["id", "amount"]), or export all of them with format "csv" or "parquet", which have no column limit.`,
    { source, columns, limit: excelSheetColumnLimit, format: 'xlsx' },
  );
}

/** Sheet names: "Data", then "Data 2", "Data 3", ... */
export function sheetName(index: number): string {
  return index === 0 ? 'Data' : `Data ${index + 1}`;
}
