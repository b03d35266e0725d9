import { SpillwayError } from '../../errors.js';
import { isJsonObject } from '../../util/is-json-object.js';

/** One output column: the source column's name and the header written for it. */
export interface OutputColumn {
  name: string;
  header: string;
}

export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
}

/** Rows `start` .. `start + count - 1` of the (sorted) selection; no count means "to the end". */
export interface RowRange {
  start: number;
  count?: number;
}

/** What the file tools take besides the source: columns in output order, sort keys, a range. */
export interface Selection {
  /** Absent: every column of the source, in source order, headed by its name. */
  columns?: OutputColumn[];
  sort: SortKey[];
  range?: RowRange;
}

/** The JSON Schema fragments every file tool shares (columns, sort, range). */
const sortKeySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['column'],
  properties: { column: { type: 'string', minLength: 1 }, direction: { enum: ['asc', 'desc'], description: 'Default asc.' } },
} as const;

export const selectionSchema = {
  columns: {
    type: 'array',
    minItems: 1,
    description: 'Columns in output order: names, or {"name": "amount", "header": "Amount (EUR)"}. Default: every column of the source.',
    items: {
      anyOf: [
        { type: 'string', minLength: 1 },
        {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1 }, header: { type: 'string' } },
        },
      ],
    },
  },
  sort: {
    description: 'Sort before the range: {"column": "amount", "direction": "desc"} or a list of them (first key first). Stable; numbers compare as numbers; empty values last.',
    anyOf: [
      sortKeySchema,
      { type: 'array', items: sortKeySchema },
    ],
  },
  range: {
    type: 'object',
    additionalProperties: false,
    required: ['start'],
    description: 'Rows after sorting: {"start": 0, "count": 100} (start counts from 0; no count means to the end).',
    properties: { start: { type: 'integer', minimum: 0 }, count: { type: 'integer', minimum: 0 } },
  },
} as const;


/**
 * Checks and normalises the selection arguments a model (or the CLI) gave.
 * The host's schema check runs first for tools; this still validates, because
 * the CLI and document specs reach it without a schema.
 */
export function normalizeSelection(input: { columns?: unknown; sort?: unknown; range?: unknown }, where = ''): Selection {
  const selection: Selection = { sort: normalizeSort(input.sort, where) };
  if (input.columns !== undefined) selection.columns = normalizeColumns(input.columns, where);
  if (input.range !== undefined) selection.range = normalizeRange(input.range, where);
  return selection;
}

function normalizeColumns(input: unknown, where: string): OutputColumn[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw new SpillwayError('INVALID_ARGUMENTS', `${where}columns must be a non-empty list of column names or {"name", "header"} objects.`, { field: `${where}columns` });
  }
  return input.map((item, index) => {
    if (typeof item === 'string' && item.length > 0) return { name: item, header: item };
    if (isJsonObject(item) && typeof item.name === 'string' && item.name.length > 0 && (item.header === undefined || typeof item.header === 'string')) {
      return { name: item.name, header: item.header ?? item.name };
    }
    throw new SpillwayError('INVALID_ARGUMENTS', `${where}columns[${index}] must be a column name or {"name": "...", "header": "..."}.`, {
      field: `${where}columns[${index}]`,
    });
  });
}

function normalizeSort(input: unknown, where: string): SortKey[] {
  if (input === undefined) return [];
  const keys = Array.isArray(input) ? input : [input];
  return keys.map((key, index) => {
    if (!isJsonObject(key) || typeof key.column !== 'string' || key.column.length === 0) {
      throw new SpillwayError('INVALID_ARGUMENTS', `${where}sort[${index}] must be {"column": "name", "direction": "asc" | "desc"}.`, { field: `${where}sort` });
    }
    const direction = key.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') {
      throw new SpillwayError('INVALID_ARGUMENTS', `${where}sort[${index}].direction must be "asc" or "desc" (got ${JSON.stringify(direction)}).`, {
        field: `${where}sort`,
      });
    }
    return { column: key.column, direction };
  });
}

function normalizeRange(input: unknown, where: string): RowRange {
  if (!isJsonObject(input)) {
    throw new SpillwayError('INVALID_RANGE', `${where}range must be {"start": 0, "count": 100}.`, { field: `${where}range` });
  }
  const check = (name: 'start' | 'count', value: unknown): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new SpillwayError(
        'INVALID_RANGE',
        `${where}range.${name} must be a whole number of rows, 0 or more (got ${JSON.stringify(value)}). Rows count from 0: {"start": 0, "count": 100} is the first 100.`,
        { field: `${where}range.${name}`, value },
      );
    }
    return value;
  };
  const range: RowRange = { start: check('start', input.start) };
  if (input.count !== undefined) range.count = check('count', input.count);
  return range;
}

/** "rows 1–100" style description of a range for messages. */
export function describeRange(range: RowRange | undefined): string {
  if (range === undefined) return 'all rows';
  return range.count === undefined ? `rows from ${range.start}` : `${range.count} rows from ${range.start}`;
}
