import { measureColumns, type ColumnMeasures } from './column-widths.js';
import { longestWordEms, textEms } from './text-width.js';

/**
 * The narrowest a column that wraps its text may get, in average characters
 * of the table's font: 9 (about 1.8 cm at 9 pt). Narrower columns break
 * every other word and make rows many lines tall.
 */
export const readableColumnChars = 9;
/** Ems of an average character (text-width.ts counts lower-case letters at 0.54). */
const averageCharEms = 0.54;
/** A column of long text (notes, descriptions) keeps at least this many ems, so its rows stay a few lines tall. */
const longTextEms = 12;
/** Font sizes are tried in these steps (points) from the body size down to the floor. */
const fontStep = 0.5;
/**
 * A table that would need more parts of columns than this is laid out one
 * record per block instead: a reader cannot follow a row across four or more
 * tables.
 */
export const maxContinuedParts = 3;
/** In a record block the field names take at most this share of the width; the values get the rest. */
const maxFieldShare = 0.35;

/** How a table is laid out: whole at its size, whole in a smaller font, in parts of columns that repeat the key column, or one record per block. */
export interface TablePlan {
  kind: 'fits' | 'smaller-font' | 'continued' | 'records';
  fontSize: number;
  /** Each part's columns (indexes into the table, in order; from the second part on, the key column first) and their widths. */
  parts: { columns: number[]; widths: number[] }[];
  /** The column every part repeats (continued tables only). */
  key?: number;
  /** The readable minimum in points at the body size: {@link readableColumnChars} characters. */
  minimumWidth: number;
  /**
   * Records only: the widths of a block's two columns (field names, values).
   * `parts` then holds the continuation plan it replaces, for the note.
   */
  record?: {
    widths: [number, number];
    /** Blocks of "field | value" columns side by side (PPTX on a wide slide; 1 when not given). */
    columns?: number;
  };
}

/**
 * Plans a table for `available` width (points) the way a careful person
 * would: at the body size when every column gets at least its readable
 * minimum (and its longest word, so IDs, dates and amounts never wrap); else
 * in a smaller font down to `minFontSize`; else in continuation parts of as
 * many columns as fit, each repeating the key column (an ID or name among
 * the first columns, else the first).
 */
export function planTable(options: {
  headers: string[];
  cells: string[][];
  available: number;
  fontSize: number;
  minFontSize: number;
  padding: number;
  /** More continuation parts than this lay the table out one record per block (default {@link maxContinuedParts}). */
  maxParts?: number;
}): TablePlan {
  const { headers, cells, available, fontSize, minFontSize, padding } = options;
  const minimumWidth = minimumColumnWidth(fontSize, padding);
  const all = headers.map((_, column) => column);
  for (let size = fontSize; size >= minFontSize - 1e-9; size -= fontStep) {
    const measures = measureColumns({ headers, cells, fontSize: size, padding });
    const floors = columnFloors(measures, size, padding);
    if (sum(floors) <= available) {
      return {
        kind: size === fontSize ? 'fits' : 'smaller-font',
        fontSize: size,
        parts: [{ columns: all, widths: share(measures, floors, all, available) }],
        minimumWidth,
      };
    }
  }
  const measures = measureColumns({ headers, cells, fontSize, padding });
  const floors = columnFloors(measures, fontSize, padding);
  const key = keyColumn(headers);
  // As few parts as fit, then as even as that count allows: 9, 9, 9 columns rather than 11, 12, 4.
  const fewest = packParts({ floors, key, limit: available }).length;
  let limit = Math.min(available, sum(floors) / fewest + (floors[key] ?? 0));
  let parts = packParts({ floors, key, limit });
  while (parts.length > fewest && limit < available) {
    limit = Math.min(available, limit * 1.03);
    parts = packParts({ floors, key, limit });
  }
  const planned = parts.map((columns) => ({ columns, widths: share(measures, floors, columns, available) }));
  // Records need rows: a table without any keeps its header in parts.
  if (planned.length > (options.maxParts ?? maxContinuedParts) && (cells[0]?.length ?? 0) > 0)
    return { kind: 'records', fontSize, parts: planned, key, minimumWidth, record: { widths: recordWidths({ headers, available, fontSize, padding }) } };
  return { kind: planned.length > 1 ? 'continued' : 'fits', fontSize, parts: planned, key, minimumWidth };
}

/**
 * A record block's columns: the field names as wide as the longest (bold)
 * name, at most {@link maxFieldShare}, never narrower than its longest word;
 * the values the rest.
 */
export function recordWidths(options: { headers: string[]; available: number; fontSize: number; padding: number }): [number, number] {
  const { headers, available, fontSize, padding } = options;
  const bold = 1.1;
  const widest = Math.max(0, ...headers.map((header) => textEms(header) * bold));
  const longestWord = Math.max(0, ...headers.map((header) => longestWordEms(header) * bold));
  const field = Math.min(Math.max(widest * 1.03 * fontSize + padding + 1, minimumColumnWidth(fontSize, padding)), available * maxFieldShare);
  const floor = Math.min(longestWord * 1.03 * fontSize + padding + 1, available / 2);
  const chosen = Math.max(field, floor);
  return [chosen, available - chosen];
}

/** Columns in order into parts of at most `limit` (by their floors); every part after the first starts with the key column. */
function packParts(options: { floors: number[]; key: number; limit: number }): number[][] {
  const { floors, key, limit } = options;
  const parts: number[][] = [];
  let current: number[] = [];
  let used = 0;
  floors.forEach((width, column) => {
    // Past the first part the key column leads every part, so it is not placed again.
    if (column === key && parts.length > 0) return;
    if (current.length > 0 && used + width > limit) {
      parts.push(current);
      current = column === key ? [] : [key];
      used = column === key ? 0 : (floors[key] ?? 0);
    }
    current.push(column);
    used += width;
  });
  if (current.length > 0) parts.push(current);
  return parts;
}

/** {@link readableColumnChars} average characters at `fontSize`, plus the cell padding. */
export function minimumColumnWidth(fontSize: number, padding: number): number {
  return readableColumnChars * averageCharEms * fontSize + padding;
}

/** The least each column may get: its longest word, the readable minimum, and room for long text; never more than it wants. */
function columnFloors(measures: ColumnMeasures, fontSize: number, padding: number): number[] {
  const readable = minimumColumnWidth(fontSize, padding);
  const roomy = longTextEms * fontSize + padding;
  return measures.want.map((want, column) => {
    const need = measures.need[column] ?? 0;
    return Math.min(want, Math.max(need, readable, want > roomy ? roomy : 0));
  });
}

/** Widths of `columns` in `available`: their natural widths when those fit, else each its floor plus a share of the rest by what it still wants. */
function share(measures: ColumnMeasures, floors: number[], columns: number[], available: number): number[] {
  const want = columns.map((column) => measures.want[column] ?? 0);
  const floor = columns.map((column) => floors[column] ?? 0);
  const totalWant = sum(want);
  if (totalWant <= available) return want.map((width) => width * Math.min(1.2, available / totalWant));
  const totalFloor = sum(floor);
  if (totalFloor >= available) return floor.map((width) => (width * available) / totalFloor);
  const rest = (available - totalFloor) / (totalWant - totalFloor);
  return want.map((width, index) => (floor[index] ?? 0) + (width - (floor[index] ?? 0)) * rest);
}

const keyName = /(^|[\s_.-])(id|key|code|no|nr|number|name|sku)$|^(id|key|name)$|[a-z](Id|Key|Code|Name)$/i;

/** The column a reader needs on every part to tell rows apart: an ID or name among the first three columns, else the first. */
export function keyColumn(headers: string[]): number {
  const found = headers.slice(0, 3).findIndex((header) => keyName.test(header.trim()));
  return found === -1 ? 0 : found;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
