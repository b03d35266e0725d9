import { formatBytes, formatCount, plural } from '../../util/format.js';
import type { SelectionStats } from '../../files/selection/select-rows.js';
import type { OutputColumn, Selection } from '../../files/selection/selection.js';

/** Sentences about a selection the caller should know: sort, range, empty output, mixed columns. */
export function selectionNotes(options: { source: string; selection: Selection; stats: SelectionStats }): string[] {
  const { source, selection, stats } = options;
  const notes: string[] = [];
  if (selection.sort.length > 0) notes.push(`Sorted by ${selection.sort.map((key) => `${key.column} ${key.direction}`).join(', ')}.`);
  if (selection.range !== undefined && stats.rows > 0) {
    const first = selection.range.start;
    const of = stats.sourceRows === undefined ? '' : ` of ${formatCount(stats.sourceRows)}`;
    notes.push(`Rows ${formatCount(first)}–${formatCount(first + stats.rows - 1)} (counting from 0)${of}.`);
  }
  if (stats.rows === 0) {
    if (stats.sourceRows === 0) notes.push(`${source} has no rows, so the output holds the header only.`);
    else if (stats.rangePastEnd && selection.range !== undefined) {
      notes.push(
        `The range starts at row ${formatCount(selection.range.start)} but ${source} has only ${plural(stats.sourceRows ?? 0, 'row')} (rows count from 0), so the output holds the header only.`,
      );
    } else notes.push('The selection is empty (range count 0), so the output holds the header only.');
  }
  for (const mixed of stats.mixedColumns) {
    notes.push(`Column ${JSON.stringify(mixed.column)} mixes ${mixed.kinds.join(' and ')}; each cell keeps its own type.`);
  }
  return notes;
}

/** Columns as the result reports them: a name, or {name, header} when the header differs. */
export function reportColumns(columns: OutputColumn[]): (string | OutputColumn)[] {
  return columns.map((column) => (column.header === column.name ? column.name : column));
}

/** "outputs/x.csv already existed, so this file is outputs/x (2).csv." */
export function renameNote(requestedName: string | undefined, finalPath: string): string[] {
  if (requestedName === undefined) return [];
  return [`outputs/${requestedName} already existed and was kept; this file is named ${finalPath} instead.`];
}

export function sizeText(bytes: number): string {
  return formatBytes(bytes);
}
