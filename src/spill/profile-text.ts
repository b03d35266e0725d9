/** The compact, one-line-per-column form of a table profile that the model reads. */
import { formatCount, plural } from '../util/format.js';
import type { ColumnProfile, TableProfile } from './profile.js';

const maxValueChars = 40;

function quote(value: string | boolean | number): string {
  if (typeof value !== 'string') return String(value);
  const shown = value.length > maxValueChars ? `${value.slice(0, maxValueChars)}…` : value;
  return JSON.stringify(shown);
}

function formatNumber(value: number | string): string {
  return typeof value === 'number' ? (Number.isInteger(value) ? formatCount(value) : String(value)) : value;
}

/** "country: string, 3 nulls, 12 distinct; top "DE" 2,301, "FR" 1,200" */
export function describeColumn(column: ColumnProfile, rows: number): string {
  const kinds = Object.keys(column.types);
  const type = column.type === 'mixed' ? `mixed (${kinds.join(', ')})` : column.minMaxOf === 'date' ? 'ISO date text' : column.type;
  const parts = [type];
  if (column.nulls > 0) parts.push(column.nulls === rows ? 'all null' : `${formatCount(column.nulls)} null`);
  if (column.min !== undefined && column.max !== undefined) parts.push(`${formatNumber(column.min)} … ${formatNumber(column.max)}`);
  if (column.nulls < rows)
    parts.push(column.distinctEstimated ? `≈${formatCount(column.distinct)} distinct (estimated)` : `${formatCount(column.distinct)} distinct`);
  let text = `${column.name}: ${parts.join(', ')}`;
  if (column.top !== undefined) text += `; top ${column.top.map((entry) => `${quote(entry.value)} ${formatCount(entry.count)}`).join(', ')}`;
  return text;
}

/**
 * The profile as a few lines, at most `maxChars` long (columns past the budget
 * are counted, not listed). Says it covers every row, not just a prefix.
 */
export function describeProfile(profile: TableProfile, maxChars = 3000): string {
  const head = `[spillway] Profile of all ${plural(profile.rows, 'row')} (computed from the whole result, not the prefix above):`;
  const lines = [head];
  let used = head.length;
  let left = profile.columns.length;
  for (const column of profile.columns) {
    const line = `- ${describeColumn(column, profile.rows)}`;
    if (used + line.length + 1 > maxChars - 80) break;
    lines.push(line);
    used += line.length + 1;
    left -= 1;
  }
  if (left > 0) lines.push(`- … ${plural(left, 'more column')}: inspect_file gives the whole profile.`);
  return lines.join('\n');
}
