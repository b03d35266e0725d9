/**
 * The profile of a table spill, computed row by row in the pass that prepares
 * the rows for writing (never by reading the file back): per column its types,
 * nulls, min/max of numbers and ISO dates, distinct values (exact up to a cap,
 * then a sketch's estimate that says so) and the most frequent values of
 * low-cardinality text.
 */
import { DistinctSketch } from './distinct-sketch.js';
import { mergeTypes, type ColumnType } from './table.js';

export interface ValueCount {
  value: string | boolean;
  count: number;
}

export interface ColumnProfile {
  name: string;
  /** One type for the column (integer + number is number; several kinds is mixed). */
  type: ColumnType;
  /** How many non-null values of each JSON type. */
  types: Partial<Record<Exclude<ColumnType, 'null' | 'mixed'>, number>>;
  /** Rows where the value is null or the key is missing. */
  nulls: number;
  /** Smallest and largest number, or ISO date string when every text value is an ISO date. */
  min?: number | string;
  max?: number | string;
  /** What min/max compare: numbers, or dates (compared as instants, given as written). */
  minMaxOf?: 'number' | 'date';
  /** Distinct non-null scalar values (objects and arrays are not counted). */
  distinct: number;
  /** True when `distinct` is an estimate (more distinct values than the profile's cap). */
  distinctEstimated: boolean;
  /** Most frequent text/boolean values, for columns with at most `topCardinality` distinct values. */
  top?: ValueCount[];
}

export interface TableProfile {
  rows: number;
  columns: ColumnProfile[];
  /** Distinct counts are exact up to this many values per column, estimated (±~3%) above. */
  distinctCap: number;
}

export interface ProfileLimits {
  /** Exact distinct counting up to this many values per column. */
  distinctCap: number;
  /** Columns with at most this many distinct values get their frequent values listed. */
  topCardinality: number;
  /** How many frequent values to list. */
  topValues: number;
}

export const defaultProfileLimits: ProfileLimits = { distinctCap: 1_000, topCardinality: 50, topValues: 5 };

/** Frequent text values longer than this are cut (with "…") in the profile. */
export const maxTopValueChars = 200;

/**
 * ISO 8601 dates and date-times as JSON carries them. Field ranges are checked
 * so that every match is a date `Date.parse` accepts (V8 itself takes 24:00 and
 * 31 February; this pattern does not take hour 24 or a bare "+02" offset).
 */
const isoDate =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;

/** Whether a text is an ISO date or date-time (see {@link isoDate}). */
export function isIsoDate(text: string): boolean {
  return text.length >= 10 && text.length <= 40 && isoDate.test(text);
}

/** The instant an ISO date string names, or NaN when it is not one. */
export function isoDateValue(text: string): number {
  return isIsoDate(text) ? Date.parse(text) : Number.NaN;
}

/**
 * Orders two ISO dates by the instant they name. Texts of the same length,
 * separator and zone form (both "Z", or both without a zone) order as text,
 * which spares a Date.parse per cell; offsets go through Date.parse.
 */
export function compareIsoDates(a: string, b: string): number {
  if (a.length === b.length && a.charCodeAt(10) === b.charCodeAt(10)) {
    const zone = zoneForm(a);
    if (zone !== 'offset' && zone === zoneForm(b)) return a < b ? -1 : a > b ? 1 : 0;
  }
  return Date.parse(a) - Date.parse(b);
}

function zoneForm(text: string): 'Z' | 'none' | 'offset' {
  if (text.charCodeAt(text.length - 1) === 90 /* Z */) return 'Z';
  return text.indexOf('+', 10) !== -1 || text.indexOf('-', 10) !== -1 ? 'offset' : 'none';
}

/** Counters in fixed fields (not a keyed record): this runs once per cell. */
class ColumnState {
  strings = 0;
  integers = 0;
  numbers = 0;
  booleans = 0;
  objects = 0;
  arrays = 0;
  numMin = Number.POSITIVE_INFINITY;
  numMax = Number.NEGATIVE_INFINITY;
  /** While every string so far was an ISO date. */
  allDates = true;
  /** The last date text checked: repeated values (a constant column) skip the checks. */
  lastDate: string | undefined;
  dateMin = '';
  dateMax = '';
  /**
   * Distinct values are counted in three stages, each cheaper per cell than
   * the one before: counts per value (boxed, one lookup a cell) while few
   * enough to list the frequent ones; then a plain set up to the cap; then a
   * sketch that estimates.
   */
  counts: Map<string | number | boolean, { count: number }> | undefined = new Map();
  seen: Set<string | number | boolean> | undefined;
  sketch: DistinctSketch | undefined;
  /** The last value counted and its box: runs of one value skip the Map. */
  lastValue: unknown = undefined;
  lastBox: { count: number } | undefined;

  constructor(readonly name: string) {}
}

/** Feed rows with `add`, then read `columns`, `columnTypes` and `profile()`. */
export class TableProfiler {
  private readonly states = new Map<string, ColumnState>();
  /** The previous row's columns in key order: rows of one shape find their state without a Map lookup. */
  private lastShape: ColumnState[] = [];
  private rows = 0;

  constructor(private readonly limits: ProfileLimits = defaultProfileLimits) {}

  add(row: Record<string, unknown>): void {
    this.rows += 1;
    const shape = this.lastShape;
    let position = 0;
    for (const key in row) {
      if (!Object.hasOwn(row, key)) continue;
      let state = shape[position];
      if (state === undefined || state.name !== key) {
        state = this.states.get(key);
        if (state === undefined) {
          state = new ColumnState(key);
          this.states.set(key, state);
        }
        shape[position] = state;
      }
      position += 1;
      this.addValue(state, row[key]);
    }
    if (shape.length > position) shape.length = position;
  }

  private addValue(state: ColumnState, value: unknown): void {
    switch (typeof value) {
      case 'string':
        state.strings += 1;
        if (state.allDates) this.addDate(state, value);
        break;
      case 'number':
        if (Number.isInteger(value)) state.integers += 1;
        else state.numbers += 1;
        if (value < state.numMin) state.numMin = value;
        if (value > state.numMax) state.numMax = value;
        break;
      case 'boolean':
        state.booleans += 1;
        break;
      case 'object':
        if (value === null) return;
        if (Array.isArray(value)) state.arrays += 1;
        else state.objects += 1;
        return;
      default:
        // undefined (not in JSON) counts as null; bigint as an integer outside min/max.
        if (typeof value === 'bigint') state.integers += 1;
        return;
    }
    this.count(state, value);
  }

  private addDate(state: ColumnState, text: string): void {
    if (text === state.lastDate) return;
    if (!isIsoDate(text)) {
      state.allDates = false;
      return;
    }
    state.lastDate = text;
    if (state.dateMin === '') {
      state.dateMin = text;
      state.dateMax = text;
      return;
    }
    if (compareIsoDates(text, state.dateMin) < 0) state.dateMin = text;
    if (compareIsoDates(text, state.dateMax) > 0) state.dateMax = text;
  }

  private count(state: ColumnState, value: string | number | boolean): void {
    const counts = state.counts;
    if (counts !== undefined) {
      if (value === state.lastValue && state.lastBox !== undefined) {
        state.lastBox.count += 1;
        return;
      }
      let box = counts.get(value);
      if (box !== undefined) box.count += 1;
      else if (counts.size < this.limits.topCardinality) counts.set(value, (box = { count: 1 }));
      if (box !== undefined) {
        state.lastValue = value;
        state.lastBox = box;
        return;
      }
      // Too many values to list frequent ones: keep only which values were seen.
      state.seen = new Set(counts.keys());
      state.counts = undefined;
      state.lastBox = undefined;
    }
    const seen = state.seen;
    if (seen !== undefined) {
      if (seen.size < this.limits.distinctCap || seen.has(value)) {
        seen.add(value);
        return;
      }
      // Past the cap: every value seen so far seeds the sketch, which takes over.
      const sketch = new DistinctSketch();
      for (const known of seen) sketch.add(known);
      state.sketch = sketch;
      state.seen = undefined;
    }
    (state.sketch as DistinctSketch).add(value);
  }

  /** Column names in first-seen order. */
  get columns(): string[] {
    return [...this.states.keys()];
  }

  /** One type per column (nulls ignored; integer + number is number). */
  get columnTypes(): Record<string, ColumnType> {
    const types: Record<string, ColumnType> = {};
    for (const [name, state] of this.states) types[name] = mergedType(state);
    return types;
  }

  profile(): TableProfile {
    return { rows: this.rows, columns: [...this.states.values()].map((state) => this.columnProfile(state)), distinctCap: this.limits.distinctCap };
  }

  private columnProfile(state: ColumnState): ColumnProfile {
    const types = typeCounts(state);
    let nonNull = 0;
    for (const count of Object.values(types)) nonNull += count;
    const profile: ColumnProfile = {
      name: state.name,
      type: mergedType(state),
      types,
      nulls: this.rows - nonNull,
      distinct: state.counts?.size ?? state.seen?.size ?? (state.sketch as DistinctSketch).estimate(),
      distinctEstimated: state.sketch !== undefined,
    };
    if (state.strings > 0 && state.allDates) {
      profile.min = state.dateMin;
      profile.max = state.dateMax;
      profile.minMaxOf = 'date';
    } else if (state.numMin <= state.numMax) {
      profile.min = state.numMin;
      profile.max = state.numMax;
      profile.minMaxOf = 'number';
    }
    const top = state.counts !== undefined ? topValues(state.counts, this.limits.topValues) : [];
    if (top.length > 0) profile.top = top;
    return profile;
  }
}

function typeCounts(state: ColumnState): ColumnProfile['types'] {
  const types: ColumnProfile['types'] = {};
  // In the order a reader expects; absent kinds are left out.
  if (state.strings > 0) types.string = state.strings;
  if (state.integers > 0) types.integer = state.integers;
  if (state.numbers > 0) types.number = state.numbers;
  if (state.booleans > 0) types.boolean = state.booleans;
  if (state.objects > 0) types.object = state.objects;
  if (state.arrays > 0) types.array = state.arrays;
  return types;
}

function mergedType(state: ColumnState): ColumnType {
  let type: ColumnType = 'null';
  for (const kind of Object.keys(typeCounts(state)) as ColumnType[]) type = mergeTypes(type, kind);
  return type;
}

function topValues(counts: Map<string | number | boolean, { count: number }>, limit: number): ValueCount[] {
  const candidates: ValueCount[] = [];
  for (const [value, { count }] of counts) {
    if (typeof value === 'number') continue;
    // A long text value would make the metadata as large as the rows; its start identifies it.
    candidates.push({ value: typeof value === 'string' && value.length > maxTopValueChars ? `${value.slice(0, maxTopValueChars)}…` : value, count });
  }
  // Ties break on the value's text, so the same table always gives the same list.
  candidates.sort((a, b) => b.count - a.count || (String(a.value) < String(b.value) ? -1 : String(a.value) > String(b.value) ? 1 : 0));
  return candidates.slice(0, limit);
}
