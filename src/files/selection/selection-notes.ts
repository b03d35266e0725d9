import { formatCount, plural } from '../../util/format.js';
import type { SelectionStats } from './select-rows.js';
import type { Selection } from './selection.js';

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
