import { SpillwayError } from '../../errors.js';
import { formatCount } from '../../util/format.js';
import type { DocumentSpec } from './document-spec.js';
import { selectRows, type SelectionProgress, type SelectionStats } from '../selection/select-rows.js';
import type { OutputColumn } from '../selection/selection.js';
import { openTableSource, type SourceLocation } from '../sources/table-source.js';
import { emptyTableError } from './table-notes.js';
import type { DocumentTask } from '../pool/worker-task.js';

/** The rows of one table block, selected and held in memory (documents are built whole). */
export interface LoadedTable {
  source: string;
  columns: OutputColumn[];
  rows: unknown[][];
  stats: SelectionStats;
}

/**
 * Reads every table block of a spec, in order, under one row budget for the
 * whole document (documents.maxTableRows): DOCX and PPTX cost about 80 KB of
 * memory and half a millisecond per table row, so bigger tables belong in
 * export_table. Returns the tables by block index.
 */
export async function loadDocumentTables(options: {
  spec: DocumentSpec;
  sources: DocumentTask['sources'];
  maxTableRows: number;
  onProgress?: (progress: SelectionProgress) => void;
}): Promise<Map<number, LoadedTable>> {
  const tables = new Map<number, LoadedTable>();
  let used = 0;
  for (const [index, block] of options.spec.blocks.entries()) {
    if (block.type !== 'table') continue;
    const location: SourceLocation =
      options.sources.kind === 'sandbox'
        ? {
            kind: 'sandbox',
            root: options.sources.root,
            principal: options.sources.principal,
            conversationId: options.sources.conversationId,
            path: block.source,
          }
        : { kind: 'local', path: block.source };
    const source = await openTableSource(location);
    try {
      const budget = options.maxTableRows - used;
      const selected = await selectRows({
        source,
        selection: block.selection,
        maxRows: budget,
        tooMany: (count, atLeast) => tooManyRows({ block: index, source: source.name, count, atLeast, used, maxTableRows: options.maxTableRows }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      });
      if (selected.columns.length === 0) throw emptyTableError(source.name);
      if (selected.columns.length > documentTableColumnLimit) throw tooWideForDocument({ block: index, source: source.name, columns: selected.columns.length });
      const rows: unknown[][] = [];
      for await (const batch of selected.batches) for (const row of batch) rows.push(row);
      used += rows.length;
      tables.set(index, { source: source.name, columns: selected.columns, rows, stats: selected.stats });
    } finally {
      await source.close();
    }
  }
  return tables;
}

/**
 * Columns one document table holds: Word's own limit for a table (PowerPoint's
 * is 75). Checked before any row is read: a wider table is unreadable on a
 * page, and thousands of columns times documents.maxTableRows rows would
 * build for minutes in memory before the task's deadline stopped it.
 */
export const documentTableColumnLimit = 63;

function tooWideForDocument(facts: { block: number; source: string; columns: number }): SpillwayError {
  const { block, source, columns } = facts;
  return new SpillwayError(
    'COLUMN_LIMIT',
    `The table in blocks[${block}] would have ${formatCount(columns)} columns of ${source}; a document table holds at most ${documentTableColumnLimit} (Word's limit for a table). Name the columns a reader needs with the block's columns (e.g. ["id", "amount"]), and give every column with export_table as CSV or XLSX.`,
    { block, source, columns, limit: documentTableColumnLimit },
  );
}

function tooManyRows(facts: { block: number; source: string; count: number; atLeast: boolean; used: number; maxTableRows: number }): SpillwayError {
  const { block, source, count, atLeast, used, maxTableRows } = facts;
  const before = used > 0 ? ` (the tables before it already hold ${formatCount(used)})` : '';
  return new SpillwayError(
    'ROW_LIMIT',
    `The table in blocks[${block}] would put ${atLeast ? 'more than ' : ''}${formatCount(count)} rows of ${source} into the document${before}; a document holds at most ${formatCount(maxTableRows)} table rows (documents.maxTableRows). Put only the rows a reader needs in the document (use range, e.g. {"start": 0, "count": 50}, after a sort) and give the full set with export_table as CSV or XLSX.`,
    { block, source, rows: count, atLeast, maxTableRows },
  );
}

/** The spec's time zone as an option object (empty when the spec names none, so the default applies). */
export function zoneOf(spec: DocumentSpec): { timeZone?: string } {
  return spec.timeZone === undefined ? {} : { timeZone: spec.timeZone };
}

/**
 * A table's caption: the title the spec gives, else the tool that made the
 * source and the rows shown ("query_sql results, rows 1–40"). Never a path:
 * a reader of the document has no use for a sandbox file name.
 */
export function tableCaption(block: { title?: string; selection: { range?: { start: number } } }, table: LoadedTable): string {
  if (block.title !== undefined) return block.title;
  const base = table.source.split(/[\\/]/).pop() ?? table.source;
  const tool = base.replace(/\.[^.]+$/, '').replace(/^\d+-/, '');
  const first = (block.selection.range?.start ?? 0) + 1;
  const rows = table.rows.length === 0 ? 'no rows' : `rows ${formatCount(first)}–${formatCount(first + table.rows.length - 1)}`;
  return `${tool} results, ${rows}`;
}
