/** draw_table's Markdown table, at most maxRows rows (read and sorted off the main thread). */
import { defaultLocale } from '../columns/format-values.js';
import { sizedMarkdownTable } from './markdown-sized.js';
import { selectRows } from '../selection/select-rows.js';
import { openTableSource } from '../sources/table-source.js';
import { emptyTableError } from './table-notes.js';
import type { MarkdownResult, MarkdownTask, ProgressMessage } from '../pool/worker-task.js';
import { drawTableTooMany } from './draw-table-limit.js';

export async function drawMarkdown(task: MarkdownTask, progress: (message: ProgressMessage) => void): Promise<MarkdownResult> {
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
    const sized = sizedMarkdownTable({
      columns: selected.columns,
      rows,
      locale: task.locale ?? defaultLocale,
      maxBytes: task.maxBytes ?? Number.POSITIVE_INFINITY,
      ...(task.timeZone === undefined ? {} : { timeZone: task.timeZone }),
    });
    return {
      markdown: sized.markdown,
      rows: sized.shown,
      selectedRows: rows.length,
      cutCells: sized.cut,
      columns: selected.columns,
      zoned: sized.zoned,
      stats: selected.stats,
    };
  } finally {
    await source.close();
  }
}
