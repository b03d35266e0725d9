/** Detection of table-shaped JSON and the facts a spill reports about its columns. */
import { isJsonObject } from '../util/is-json-object.js';

export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array' | 'mixed';

export interface TableShape {
  rows: Record<string, unknown>[];
  /** When the rows sat inside an object: the member that held them and the other members. */
  envelope?: { rowsKey: string; fields: Record<string, unknown> };
}

function isRowArray(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every(isJsonObject);
}

/**
 * A table is a non-empty array of objects, or an object with exactly one member
 * that is such an array (the other members must be small: they travel in the
 * spill's metadata, not in the JSONL).
 */
export function detectTable(value: unknown, maxEnvelopeChars = 10_000): TableShape | undefined {
  if (isRowArray(value)) return { rows: value };
  if (!isJsonObject(value)) return undefined;
  const rowKeys = Object.keys(value).filter((key) => isRowArray(value[key]));
  if (rowKeys.length !== 1) return undefined;
  const rowsKey = rowKeys[0] as string;
  const fields: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (key !== rowsKey) fields[key] = member;
  if (JSON.stringify(fields).length > maxEnvelopeChars) return undefined;
  return { rows: value[rowsKey] as Record<string, unknown>[], envelope: { rowsKey, fields } };
}

export function jsonType(value: unknown): ColumnType {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'bigint':
      return 'integer';
    default:
      return 'object';
  }
}

/** Column names in first-seen order and one type per column (nulls ignored; integer+number is number). */
export class ColumnTracker {
  private readonly types = new Map<string, ColumnType>();

  add(row: Record<string, unknown>): void {
    for (const key of Object.keys(row)) {
      const seen = jsonType(row[key]);
      const known = this.types.get(key);
      // Set only on change: this runs once per cell of a table of any size.
      if (known === undefined) this.types.set(key, seen);
      else if (known !== seen && known !== 'mixed') this.types.set(key, mergeTypes(known, seen));
    }
  }

  get columns(): string[] {
    return [...this.types.keys()];
  }

  get columnTypes(): Record<string, ColumnType> {
    return Object.fromEntries(this.types);
  }
}

export function mergeTypes(a: ColumnType, b: ColumnType): ColumnType {
  if (a === b) return a;
  if (a === 'null') return b;
  if (b === 'null') return a;
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'number';
  return 'mixed';
}
