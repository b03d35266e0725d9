import { plural } from '../util/format.js';

/** What a reference sentence says of a file's contents: its format, and a table's size. */
export interface ContentFacts {
  format: string;
  rows?: number | undefined;
  columns?: string[] | undefined;
  mimeType?: string | undefined;
}

const maxColumnsNamed = 30;

/** "JSONL table, 321 rows × 9 columns", "JSON", "text", "binary image/png". */
export function describeKind(facts: ContentFacts): string {
  switch (facts.format) {
    case 'jsonl':
      return `JSONL table, ${plural(facts.rows ?? 0, 'row')} × ${plural(facts.columns?.length ?? 0, 'column')}`;
    case 'json':
      return 'JSON';
    case 'binary':
      return `binary ${facts.mimeType ?? ''}`.trim();
    default:
      return facts.format;
  }
}

/** " Columns: a, b, …." naming up to 30 columns (and how many more), or '' for none. */
export function describeColumns(columns: readonly string[] | undefined): string {
  if (columns === undefined || columns.length === 0) return '';
  const more = columns.length > maxColumnsNamed ? `, … (${columns.length - maxColumnsNamed} more)` : '';
  return ` Columns: ${columns.slice(0, maxColumnsNamed).join(', ')}${more}.`;
}
