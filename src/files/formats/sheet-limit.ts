/** Excel's sheet limit: 1,048,576 rows, the header row included. */
export const excelSheetRowLimit = 1_048_576;

/** Excel's cell limit: longer text is cut (Excel would refuse to open the file otherwise). */
export const excelCellCharLimit = 32_767;

/** Data rows one sheet holds under a row limit that counts the header. */
export function dataRowsPerSheet(sheetRowLimit: number): number {
  if (!Number.isSafeInteger(sheetRowLimit) || sheetRowLimit < 2)
    throw new RangeError(`sheet row limit must be an integer of at least 2 (got ${sheetRowLimit})`);
  return sheetRowLimit - 1;
}

/** Sheets needed for `dataRows` rows, each sheet with its own header row. */
export function sheetsNeeded(dataRows: number, sheetRowLimit: number = excelSheetRowLimit): number {
  return Math.max(1, Math.ceil(dataRows / dataRowsPerSheet(sheetRowLimit)));
}

/** Sheet names: "Data", then "Data 2", "Data 3", ... */
export function sheetName(index: number): string {
  return index === 0 ? 'Data' : `Data ${index + 1}`;
}
