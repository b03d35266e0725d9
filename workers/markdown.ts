/** Piscina task: draw_table's Markdown table, at most maxRows rows (read and sorted off the main thread). */
import { markdownTable } from '../src/files/formats/markdown-table.js';
import { selectRows } from '../src/files/selection/select-rows.js';
import { openTableSource } from '../src/files/sources/table-source.js';
import { emptyTableError } from '../src/files/formats/table-notes.js';
import { workerTask } from '../src/files/pool/worker-run.js';
import type { MarkdownResult, MarkdownTask } from '../src/files/pool/worker-task.js';
import { drawTableTooMany } from '../src/files/formats/draw-table-limit.js';

export default workerTask<MarkdownTask, MarkdownResult>(async (task, progress) => {
  const source = await openTableSource(task.source);
  try {
    const selected = await selectRows({
      source,
      selection: task.selection,
      maxRows: task.maxRows,
      tooMany: (count, atLeast) => drawTableTooMany({ source: source.name, count, atLeast, maxRows: task.maxRows }),
      onProgress: progress,
    });
    if (selected.columns.length === 0) throw emptyTableError(source.name);
    const rows: unknown[][] = [];
    for await (const batch of selected.batches) for (const row of batch) rows.push(row);
    return { markdown: markdownTable(selected.columns, rows), rows: rows.length, columns: selected.columns, stats: selected.stats };
  } finally {
    await source.close();
  }
});
