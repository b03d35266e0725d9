// An independent recount of a JSONL spill: what its profile must say, computed
// the plain way (whole columns in arrays, sets, sorts) from the file on disk.
import { readFile } from 'node:fs/promises';
import { isoDateValue, maxTopValueChars } from '../../src/spill/profile.js';

type Scalar = string | number | boolean;

function kind(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

export interface RecountedColumn {
  name: string;
  types: Record<string, number>;
  nulls: number;
  min?: number | string;
  max?: number | string;
  minMaxOf?: 'number' | 'date';
  distinct: number;
  top?: { value: string | boolean; count: number }[];
}

export async function recount(file: string): Promise<{ rows: number; columns: RecountedColumn[] }> {
  const rows = (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const names: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!names.includes(key)) names.push(key);
  const columns = names.map((name) => {
    const values = rows.map((row) => (Object.hasOwn(row, name) ? row[name] : undefined));
    const present = values.filter((value) => value !== null && value !== undefined);
    const types: Record<string, number> = {};
    for (const value of present) types[kind(value)] = (types[kind(value)] ?? 0) + 1;
    const column: RecountedColumn = { name, types, nulls: values.length - present.length, distinct: 0 };
    const scalars = present.filter((value): value is Scalar => typeof value !== 'object');
    const byKey = new Map<string, { value: Scalar; count: number }>();
    for (const value of scalars) {
      const key = `${typeof value}:${String(value)}`;
      const entry = byKey.get(key) ?? { value, count: 0 };
      entry.count += 1;
      byKey.set(key, entry);
    }
    column.distinct = byKey.size;
    const strings = scalars.filter((value): value is string => typeof value === 'string');
    const numbers = scalars.filter((value): value is number => typeof value === 'number');
    if (strings.length > 0 && strings.every((text) => !Number.isNaN(isoDateValue(text)))) {
      column.min = strings.reduce((a, b) => (isoDateValue(b) < isoDateValue(a) ? b : a));
      column.max = strings.reduce((a, b) => (isoDateValue(b) > isoDateValue(a) ? b : a));
      column.minMaxOf = 'date';
    } else if (numbers.length > 0) {
      column.min = Math.min(...numbers);
      column.max = Math.max(...numbers);
      column.minMaxOf = 'number';
    }
    if (byKey.size <= 50) {
      const top = [...byKey.values()]
        .filter((entry) => typeof entry.value !== 'number')
        .map((entry) => ({
          value:
            typeof entry.value === 'string' && entry.value.length > maxTopValueChars
              ? `${entry.value.slice(0, maxTopValueChars)}…`
              : (entry.value as string | boolean),
          count: entry.count,
        }))
        .sort((a, b) => b.count - a.count || (String(a.value) < String(b.value) ? -1 : String(a.value) > String(b.value) ? 1 : 0))
        .slice(0, 5);
      if (top.length > 0) column.top = top;
    }
    return column;
  });
  return { rows: rows.length, columns };
}
