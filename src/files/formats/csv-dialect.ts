import { guardFormula } from './csv-cells.js';
import { splitsIntoFormula } from './formula-guard.js';

/** How a CSV file is written besides RFC 4180: its separator and whether the formula guard runs. */
export interface CsvDialect {
  delimiter: ',' | ';' | '\t';
  formulaGuard: boolean;
}

/**
 * A row as one CSV line (CRLF included) in a dialect other than the default
 * (comma, guard on, which {@link csvLine} writes): a field is quoted when it
 * holds the delimiter, a quote, CR or LF.
 */
export function csvLineIn(values: readonly unknown[], dialect: CsvDialect): string {
  let line = '';
  for (let index = 0; index < values.length; index += 1) {
    if (index > 0) line += dialect.delimiter;
    const value = values[index];
    let text: string;
    switch (typeof value) {
      case 'number':
      case 'bigint':
        line += String(value);
        continue;
      case 'boolean':
        line += value ? 'true' : 'false';
        continue;
      case 'string':
        text = dialect.formulaGuard ? guardFormula(value) : value;
        break;
      case 'object':
        if (value === null) continue;
        text = JSON.stringify(value);
        break;
      default:
        continue;
    }
    // With the guard on, text another reader's delimiter would split into a formula is quoted too (formula-guard.ts).
    const quote =
      (dialect.formulaGuard && splitsIntoFormula(typeof value === 'string' ? value : text)) ||
      text.includes('"') ||
      text.includes(dialect.delimiter) ||
      text.includes('\n') ||
      text.includes('\r');
    line += quote ? `"${text.replaceAll('"', '""')}"` : text;
  }
  return `${line}\r\n`;
}
