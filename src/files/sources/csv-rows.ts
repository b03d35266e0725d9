import { SpillwayError } from '../../errors.js';
import { csvFieldValue, csvRecords, type CsvRecord } from './csv-records.js';

/** The header row's cells as column names (the first record, read on its own pass). */
export async function readCsvHeader(chunks: AsyncIterable<string>, name: string): Promise<string[]> {
  for await (const records of csvRecords(chunks, name)) {
    if (records[0] !== undefined) return headerNames(records[0].fields);
  }
  throw new SpillwayError('NOT_A_TABLE', `${name} is empty; a CSV table needs a header row.`, { path: name });
}

/**
 * Header cells as column names: blanks become column_N, repeats get _2, _3.
 * The next suffix to try is kept per cell text, so a header of thousands of
 * repeats stays linear (names only ever get taken, so no smaller suffix frees up).
 */
export function headerNames(fields: string[]): string[] {
  const seen = new Set<string>();
  const nextSuffix = new Map<string, number>();
  return fields.map((field, index) => {
    let name = field.trim() === '' ? `column_${index + 1}` : field;
    if (seen.has(name)) {
      let n = nextSuffix.get(field) ?? 2;
      while (seen.has(`${field}_${n}`)) n += 1;
      name = `${field}_${n}`;
      nextSuffix.set(field, n + 1);
    }
    seen.add(name);
    return name;
  });
}

/** The data rows (the header record skipped, empty lines skipped), cells typed by {@link csvFieldValue}. */
export async function* csvRows(chunks: AsyncIterable<string>, name: string, header: string[]): AsyncGenerator<Record<string, unknown>[]> {
  let headerSeen = false;
  for await (const records of csvRecords(chunks, name)) {
    const rows: Record<string, unknown>[] = [];
    for (const record of records) {
      if (!headerSeen) {
        headerSeen = true;
        continue;
      }
      if (record.fields.length === 1 && record.fields[0] === '') continue;
      rows.push(csvRow(record, name, header));
    }
    if (rows.length > 0) yield rows;
  }
}

function csvRow(record: CsvRecord, name: string, header: string[]): Record<string, unknown> {
  if (record.fields.length > header.length) {
    throw new SpillwayError(
      'NOT_A_TABLE',
      `The record on line ${record.line} of ${name} has ${record.fields.length} fields but the header has ${header.length}; quote fields that contain commas.`,
      { path: name, line: record.line },
    );
  }
  // No prototype: a header cell named "__proto__" is just a column.
  const row = Object.create(null) as Record<string, unknown>;
  for (let index = 0; index < header.length; index += 1) {
    const field = record.fields[index];
    row[header[index] as string] = field === undefined ? null : csvFieldValue(field);
  }
  return row;
}
