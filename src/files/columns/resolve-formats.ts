import type { ColumnFormat } from './column-format.js';
import { checkFormatFits, epochUnit, inferFormat } from './infer-format.js';

/** A column's format and whether the call named it (CSV applies only named formats). */
export interface ResolvedFormat {
  format: ColumnFormat;
  explicit: boolean;
}

/**
 * The format of every output column, from the call where it names one
 * (checked against the sample) and inferred from the sample otherwise.
 * `sample` is rows in output column order; the writers pass the first rows
 * they read, which they hold anyway to size the columns.
 */
export function resolveFormats(columns: readonly { name: string; header: string; format?: ColumnFormat }[], sample: readonly unknown[][]): ResolvedFormat[] {
  return columns.map((column, index) => {
    const values = sample.map((row) => row[index]);
    if (column.format !== undefined) {
      checkFormatFits({ column: column.name, format: column.format, values });
      // A date format named on epoch numbers reads them in the unit their range shows.
      const numbers = values.filter((value): value is number => typeof value === 'number');
      const epoch = column.format.type === 'datetime' || column.format.type === 'date' ? epochUnit(numbers) : undefined;
      if (epoch !== undefined) return { format: { type: 'datetime', epoch }, explicit: true };
      return { format: column.format, explicit: true };
    }
    return { format: inferFormat(column.name, values), explicit: false };
  });
}
