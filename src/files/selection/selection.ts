import type { Static } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { enumOf } from '../../util/schema-builders.js';
import { columnFormatSchema, normalizeColumnFormat, type ColumnFormat } from '../columns/column-format.js';

/** One output column: the source column's name and the header written for it. */
export interface OutputColumn {
  name: string;
  header: string;
  /** How the values are shown; absent: inferred from the values by each writer. */
  format?: ColumnFormat;
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

const closed = { additionalProperties: false } as const;

const sortKeySchema = Type.Object(
  { column: Type.String({ minLength: 1 }), direction: Type.Optional(enumOf(['asc', 'desc'], { description: 'Default asc.' })) },
  closed,
);

const columnSchema = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ name: Type.String({ minLength: 1 }), header: Type.Optional(Type.String()), format: Type.Optional(columnFormatSchema) }, closed),
]);

/** The argument schemas every file tool shares (columns, sort, range), for `Type.Object({...selectionSchema})`. */
export const selectionSchema = {
  columns: Type.Optional(
    Type.Array(columnSchema, {
      minItems: 1,
      description:
        'Columns in output order: names, or {"name": "amount", "header": "Amount (EUR)", "format": {"type": "currency", "currency": "EUR"}}. Default: every column of the source, formats inferred from the values.',
    }),
  ),
  sort: Type.Optional(
    Type.Union([sortKeySchema, Type.Array(sortKeySchema)], {
      description:
        'Sort before the range: {"column": "amount", "direction": "desc"} or a list of them (first key first). Stable; numbers compare as numbers; empty values last.',
    }),
  ),
  range: Type.Optional(
    Type.Object(
      { start: Type.Integer({ minimum: 0 }), count: Type.Optional(Type.Integer({ minimum: 0 })) },
      { ...closed, description: 'Rows after sorting: {"start": 0, "count": 100} (start counts from 0; no count means to the end).' },
    ),
  ),
};

/** columns, sort and range as a tool receives them once the host has checked them against {@link selectionSchema}. */
export type SelectionArguments = Static<ReturnType<typeof Type.Object<typeof selectionSchema>>>;

/** The selection of arguments that passed {@link selectionSchema}: only defaults are filled in, nothing is checked again. */
export function selectionFromArguments(input: SelectionArguments): Selection {
  const sort = input.sort === undefined ? [] : Array.isArray(input.sort) ? input.sort : [input.sort];
  const selection: Selection = { sort: sort.map((key) => ({ column: key.column, direction: key.direction ?? 'asc' })) };
  if (input.columns !== undefined) {
    selection.columns = input.columns.map((column, index): OutputColumn => {
      if (typeof column === 'string') return { name: column, header: column };
      const output: OutputColumn = { name: column.name, header: column.header ?? column.name };
      if (column.format !== undefined) output.format = normalizeColumnFormat(column.format, `columns[${index}].`);
      return output;
    });
  }
  if (input.range !== undefined) {
    const { start, count } = input.range;
    selection.range = count === undefined ? { start } : { start, count };
  }
  return selection;
}

/**
 * Checks and normalises selection arguments that no schema has checked: the
 * CLI's options and the tables of a document spec read from a file. Tools
 * get theirs checked by the host and use {@link selectionFromArguments}.
 */
export function normalizeSelection(input: { columns?: unknown; sort?: unknown; range?: unknown }, where = ''): Selection {
  checkSort(input.sort, where);
  if (input.columns !== undefined) checkColumns(input.columns, where);
  if (input.range !== undefined) checkRange(input.range, where);
  return selectionFromArguments(input as SelectionArguments);
}

function checkColumns(input: unknown, where: string): void {
  if (!Array.isArray(input) || input.length === 0) {
    throw new SpillwayError('INVALID_ARGUMENTS', `${where}columns must be a non-empty list of column names or {"name", "header"} objects.`, {
      field: `${where}columns`,
    });
  }
  input.forEach((item, index) => {
    if (typeof item === 'string' && item.length > 0) return;
    if (isJsonObject(item) && typeof item.name === 'string' && item.name.length > 0 && (item.header === undefined || typeof item.header === 'string')) {
      const unknown = Object.keys(item).find((key) => !['name', 'header', 'format'].includes(key));
      if (unknown === undefined) return;
    }
    throw new SpillwayError('INVALID_ARGUMENTS', `${where}columns[${index}] must be a column name or {"name": "...", "header"?: "...", "format"?: ...}.`, {
      field: `${where}columns[${index}]`,
    });
  });
}

function checkSort(input: unknown, where: string): void {
  if (input === undefined) return;
  const keys = Array.isArray(input) ? input : [input];
  keys.forEach((key, index) => {
    if (!isJsonObject(key) || typeof key.column !== 'string' || key.column.length === 0) {
      throw new SpillwayError('INVALID_ARGUMENTS', `${where}sort[${index}] must be {"column": "name", "direction": "asc" | "desc"}.`, {
        field: `${where}sort`,
      });
    }
    const direction = key.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') {
      throw new SpillwayError('INVALID_ARGUMENTS', `${where}sort[${index}].direction must be "asc" or "desc" (got ${JSON.stringify(direction)}).`, {
        field: `${where}sort`,
      });
    }
  });
}

function checkRange(input: unknown, where: string): void {
  if (!isJsonObject(input)) {
    throw new SpillwayError('INVALID_RANGE', `${where}range must be {"start": 0, "count": 100}.`, { field: `${where}range` });
  }
  const check = (name: 'start' | 'count', value: unknown): void => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new SpillwayError(
        'INVALID_RANGE',
        `${where}range.${name} must be a whole number of rows, 0 or more (got ${JSON.stringify(value)}). Rows count from 0: {"start": 0, "count": 100} is the first 100.`,
        { field: `${where}range.${name}`, value },
      );
    }
  };
  check('start', input.start);
  if (input.count !== undefined) check('count', input.count);
}

/** "rows 1–100" style description of a range for messages. */
export function describeRange(range: RowRange | undefined): string {
  if (range === undefined) return 'all rows';
  return range.count === undefined ? `rows from ${range.start}` : `${range.count} rows from ${range.start}`;
}
