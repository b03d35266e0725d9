import type { Static } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import { defineTool } from '../../host/define-tool.js';
import type { FilesSqlEngine } from '../../analysis/files-sql-engine.js';
import { dataFilePattern } from '../../analysis/data-files.js';
import type { ToolContext, ToolDefinition } from '../../host/tool.js';
import type { ConversationSandbox } from '../../sandbox/index.js';
import { metadataSuffix } from '../../sandbox/layout.js';
import { screeningNotes } from '../../screening/index.js';
import { describeProfile } from '../../spill/profile-text.js';
import type { SpillRef } from '../../spill/spill-ref.js';
import { formatBytes, formatCount } from '../../util/format.js';
import { inspectFileOutput } from './analysis-output.js';
import { readsOnly } from '../tool-annotations.js';

export const InspectFileInput = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'A file of this conversation, e.g. "results/0003-list_tickets.jsonl".' }),
  },
  { additionalProperties: false },
);
export type InspectFileArgs = Static<typeof InspectFileInput>;

/** LIBRARY-NOTES: JSON rows run ~3.3 bytes a token and CSV ~2.9, so bytes/3 is a safe fast estimate for data. */
const bytesPerDataToken = 3;
const maxMetadataBytes = 4 * 1024 * 1024;

/**
 * inspect_file: what a file holds without reading it. A table spill's profile
 * was computed when it was written; this reads only its metadata. A data file
 * without one (a CSV or Parquet file a user placed, an export) is summarised
 * by DuckDB's SUMMARIZE under query_files' locks.
 */
export function inspectFileTool(engine: FilesSqlEngine): ToolDefinition {
  return defineTool({
    name: 'inspect_file',
    readsConversationFiles: true,
    outputSchema: inspectFileOutput,
    description: [
      'Describe a file of this conversation without reading it: format, size, rows, columns and, for a spilled table, its profile computed from every row when it was saved (per column: type, nulls, min/max of numbers and ISO dates, distinct count, most frequent values); other data files (CSV, JSON, Parquet) are summarised by DuckDB.',
      'Also estimates the tokens a full read would cost. Start here with a large result: inspect → query_files (SQL over the file: filter, group, join, sort) → build_chart, export_table or draw_table with the path.',
    ].join(' '),
    inputSchema: InspectFileInput,
    spill: false,
    annotations: readsOnly('Inspect a sandbox file'),
    async handler(args, context) {
      const file = await context.sandbox.openRead(args.path);
      const bytes = file.stats.size;
      await file.handle.close();
      const meta = await readSpillMetadata(context.sandbox, file.relative);
      const tokens = Math.ceil(bytes / bytesPerDataToken);
      const value: Record<string, unknown> = {
        path: file.relative,
        format: meta?.format ?? formatFromName(file.relative),
        bytes,
      };
      if (meta?.rows !== undefined) value.rows = meta.rows;
      if (meta?.columns !== undefined) value.columns = meta.columns;
      value.readCost = {
        tokens,
        estimate: `bytes / ${bytesPerDataToken}: data runs about 3.3 bytes a token as JSON and 2.9 as CSV, so this errs high; not a tokenizer count`,
      };
      const notes = [`Reading it whole would cost about ${formatCount(tokens)} tokens (${formatBytes(bytes)}).`];
      if (meta?.profile !== undefined) {
        value.profile = meta.profile;
        notes.push(describeProfile(meta.profile, 6000));
      } else if (dataFilePattern.test(file.relative)) {
        const summary = await summarize(engine, context, file.relative);
        if (summary !== undefined) {
          value.rows = summary.rows;
          value.columns = summary.columns.map((column) => column.column_name);
          value.summarize = summary.columns;
          notes.push(`No stored profile (not a spill); DuckDB's SUMMARIZE of all ${formatCount(summary.rows)} rows (approx_unique is an estimate):`);
          notes.push(...summary.columns.map(describeSummaryColumn));
        } else {
          notes.push(`No stored profile, and DuckDB could not read it as a table; try query_files: SUMMARIZE SELECT * FROM '${file.relative}'.`);
        }
      }
      if (meta?.screening !== undefined) {
        value.screening = meta.screening;
        notes.push(...screeningNotes(meta.screening));
      }
      if (meta?.expiresAt !== undefined) value.expiresAt = meta.expiresAt;
      value.summary = notes.join('\n');
      return { value };
    },
  });
}

interface SummaryColumn {
  column_name: string;
  column_type: string;
  min: unknown;
  max: unknown;
  approx_unique: number;
  null_percentage: unknown;
  count: number;
}

/** DuckDB's SUMMARIZE of a data file, or undefined when it cannot be read as a table. */
async function summarize(engine: FilesSqlEngine, context: ToolContext, relative: string): Promise<{ rows: number; columns: SummaryColumn[] } | undefined> {
  const { timeoutMs, memoryBytes, threads } = context.config.analysis;
  try {
    const result = await engine.query({
      sandbox: context.sandbox,
      sql: `SUMMARIZE SELECT * FROM '${relative.replace(/'/g, "''")}'`,
      maxRows: 1000,
      timeoutMs,
      memoryBytes,
      threads,
      signal: context.signal,
    });
    const columns = result.rows.map(({ column_name, column_type, min, max, approx_unique, null_percentage, count }) => ({
      column_name: String(column_name),
      column_type: String(column_type),
      min,
      max,
      approx_unique: Number(approx_unique),
      null_percentage,
      count: Number(count),
    }));
    return { rows: columns[0]?.count ?? 0, columns };
  } catch (error) {
    context.logger.debug({ err: error, path: relative }, 'inspect_file: SUMMARIZE failed');
    return undefined;
  }
}

function describeSummaryColumn(column: SummaryColumn): string {
  const clip = (value: unknown) => {
    const text = String(value);
    return text.length > 40 ? `${text.slice(0, 40)}…` : text;
  };
  const range = column.min === null || column.min === undefined ? '' : `, ${clip(column.min)} … ${clip(column.max)}`;
  return `- ${column.column_name}: ${column.column_type}, ${String(column.null_percentage)}% null${range}, ≈${formatCount(column.approx_unique)} distinct`;
}

/** A spill's metadata (read through the sandbox like any file), or undefined for files without one. */
export async function readSpillMetadata(sandbox: ConversationSandbox, relative: string): Promise<Partial<SpillRef> | undefined> {
  try {
    const { data } = await sandbox.readFile(`${relative}${metadataSuffix}`, { maxBytes: maxMetadataBytes });
    // Written by spillway itself and never merged into other objects, so plain JSON.parse is enough.
    const parsed: unknown = JSON.parse(data.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<SpillRef>) : undefined;
  } catch {
    return undefined;
  }
}

function formatFromName(name: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return extension === 'txt' ? 'text' : extension || 'unknown';
}
