import { SpillwayError } from '../../errors.js';
import { formatCount } from '../../util/format.js';

/** draw_table's refusal above drawTable.maxRows: draw what the reader needs, export the rest. */
export function drawTableTooMany(facts: { source: string; count: number; atLeast: boolean; maxRows: number }): SpillwayError {
  const { source, count, atLeast, maxRows } = facts;
  return new SpillwayError(
    'ROW_LIMIT',
    `draw_table draws at most ${formatCount(maxRows)} rows, and this selection of ${source} has ${atLeast ? 'more than ' : ''}${formatCount(count)}. Draw only the rows the answer needs (sort, then range {"start": 0, "count": 20}), and give the full set as a file with export_table using the same source path.`,
    { source, rows: count, atLeast, maxRows },
  );
}
