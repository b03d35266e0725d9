import type { TablePlan } from '../layout/table-plan.js';
import { maxContinuedParts, readableColumnChars } from '../layout/table-plan.js';

/** Centimetres in a point. */
const cmPerPoint = 2.54 / 72;

/**
 * What a result says about a wide table's layout: nothing when it fits at the
 * body size, else the plan (smaller font, or parts that repeat the key
 * column) and the readable minimum that decided it.
 */
export function tablePlanNote(options: { plan: TablePlan; headers: string[]; where: string; bodySize: number; unit: 'page' | 'slide' }): string | undefined {
  const { plan, headers, where, bodySize, unit } = options;
  const minimum = `${readableColumnChars} characters (about ${(plan.minimumWidth * cmPerPoint).toFixed(1)} cm at ${bodySize} pt)`;
  if (plan.kind === 'smaller-font')
    return `${where} has ${headers.length} columns, too wide for the ${unit} at ${bodySize} pt with at least ${minimum} a column, so it is set in ${plan.fontSize} pt.`;
  const key = headers[plan.key ?? 0] ?? '';
  if (plan.kind === 'records')
    return `${where}: records laid out one per block: ${headers.length} columns do not fit the ${unit} even in a smaller font with at least ${minimum} a column, and ${plan.parts.length} parts of columns (more than ${maxContinuedParts}) are too many to follow a row across, so each row is a block of "field | value" lines headed by its "${key}". Pass columns to keep only those a reader needs, or give the whole table with export_table (XLSX).`;
  if (plan.kind !== 'continued') return undefined;
  const sizes = plan.parts.map((part) => part.columns.length).join(', ');
  return `${where} has ${headers.length} columns, too wide for the ${unit} even in a smaller font with at least ${minimum} a column, so it is shown in ${plan.parts.length} parts of ${sizes} columns, one after another, each repeating "${key}" so a reader can match the rows. Pass columns to keep only those a reader needs, or give the whole table with export_table (XLSX).`;
}

/** Which columns part `part` of a plan holds, "columns 10–17 of 25", with the repeated key named from the second part on. */
export function partColumns(options: { plan: TablePlan; part: number; headers: string[] }): string {
  const { plan, part, headers } = options;
  const columns = plan.parts[part]?.columns ?? [];
  const own = columns.filter((column) => part === 0 || column !== plan.key);
  const span = `columns ${(own[0] ?? 0) + 1}–${(own[own.length - 1] ?? 0) + 1} of ${headers.length}`;
  return part === 0 ? span : `${span}, with "${headers[plan.key ?? 0] ?? ''}" repeated`;
}

/** The caption of a table part: "Orders (part 2 of 3: columns 10–17 of 25, with "id" repeated)"; a table in one part keeps its caption. */
export function partCaption(options: { caption: string; plan: TablePlan; part: number; headers: string[] }): string {
  const { caption, plan, part } = options;
  if (plan.kind === 'records') return `${caption} (one block per row: ${options.headers.length} columns do not fit across the page)`;
  if (plan.parts.length === 1) return caption;
  return `${caption} (part ${part + 1} of ${plan.parts.length}: ${partColumns(options)})`;
}
