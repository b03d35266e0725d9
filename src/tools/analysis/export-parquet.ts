import { availableParallelism } from 'node:os';
import type { FilesSqlEngine } from '../../analysis/files-sql-engine.js';
import { selectionSql, type TableSelection } from '../../analysis/selection-sql.js';
import type { Config } from '../../config/schema.js';
import type { ToolContext, ToolDefinition, ToolOutput } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { asDiskError, createPendingFile, toDiskErrorFromText } from '../../sandbox/index.js';
import { formatBytes, plural } from '../../util/format.js';
import { exportTableLead, localFormats } from '../files/export-table.js';
import { outputFilename } from '../files/output-name.js';
import { redactionNotes } from '../files/redaction-note.js';

const parquetSentence =
  'format "parquet" writes an Apache Parquet file (typed columns, compressed; for pandas, Spark, DuckDB, BI tools) with the same columns/sort/range.';

/** The format member of a schema (JSON Schema enum, or TypeBox's anyOf of consts) with "parquet" added. */
function withParquetFormat(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  const format = properties?.format;
  if (properties === undefined || format === undefined) return schema;
  let next: Record<string, unknown> = format;
  if (Array.isArray(format.enum)) next = { ...format, enum: [...(format.enum as unknown[]), 'parquet'] };
  else if (Array.isArray(format.anyOf)) next = { ...format, anyOf: [...(format.anyOf as unknown[]), { const: 'parquet', type: 'string' }] };
  if (typeof next.description === 'string') next = { ...next, description: `${next.description} parquet (Apache Parquet, via DuckDB).` };
  // Spread keeps TypeBox's symbol-keyed markers on the outer object.
  return { ...schema, properties: { ...properties, format: next } };
}

async function exportParquet(engine: FilesSqlEngine, args: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> {
  const sourceArg = String(args.source);
  const source = await context.sandbox.openRead(sourceArg);
  await source.handle.close();
  const filename = outputFilename({
    requested: args.filename === undefined ? undefined : String(args.filename),
    sourcePath: source.relative,
    extension: 'parquet',
  });
  const target = await context.sandbox.resolveForWrite(`outputs/${filename}`, { folders: ['outputs'] });
  const pending = await createPendingFile(target.absolute).catch((error: unknown) => {
    throw asDiskError(error, { path: target.relative });
  });
  let rows: number;
  let finalPath: string;
  try {
    const selection: TableSelection = { source: source.relative };
    if (args.columns !== undefined) selection.columns = args.columns as TableSelection['columns'];
    if (args.sort !== undefined) selection.sort = args.sort as TableSelection['sort'];
    if (args.range !== undefined) selection.range = args.range as TableSelection['range'];
    const { timeoutMs, memoryBytes, threads } = context.config.analysis;
    rows = await engine.exportParquet({
      sandbox: context.sandbox,
      select: selectionSql(selection),
      source: source.absolute,
      output: pending.tempPath,
      timeoutMs,
      memoryBytes,
      threads: parquetThreads(threads, context.config.workers.poolSize),
      signal: context.signal,
    });
    finalPath = await pending.commit({ pickFreeName: true });
  } catch (error) {
    await pending.abort();
    // DuckDB writes in its own process and reports a full disk as text ("IO Error: ... No space left on device").
    throw toDiskErrorFromText(error, { path: target.relative }) ?? asDiskError(error, { path: target.relative });
  }
  const { size } = await import('node:fs/promises').then((fs) => fs.stat(finalPath));
  const attachment = describeAttachment(context.sandbox, finalPath, size, rows);
  const notes = [
    ...(attachment.filename === filename ? [] : [`${filename} was taken, so the file is named ${attachment.filename}.`]),
    ...(await redactionNotes(context.sandbox, [source.relative])),
  ];
  return {
    value: {
      message: `Exported ${plural(rows, 'row')} from ${source.relative} to ${attachment.path} (Parquet, ${formatBytes(size)}). The user gets it as a download; do not repeat the rows in your answer.`,
      path: attachment.path,
      format: 'parquet',
      rows,
      bytes: size,
      ...(notes.length > 0 ? { notes } : {}),
    },
    attachments: [attachment],
  };
}

/**
 * DuckDB threads for a Parquet export: a file build like the pool's CSV and
 * XLSX exports, so it may use as many threads as the file-building pool
 * (`workers.poolSize`, 0 = one per core), never fewer than `analysis.threads`.
 * One thread made a 1M-row export 1.57× DuckDB's own time on two cores.
 */
export function parquetThreads(analysisThreads: number, poolSize: number): number {
  return Math.max(analysisThreads, Math.min(64, poolSize > 0 ? poolSize : availableParallelism()));
}

/**
 * export_table with format "parquet" as well: Parquet is written by DuckDB
 * (under the same locks as query_files), the other formats by export_table's
 * own workers, untouched.
 */
export function withParquetExport(exportTable: ToolDefinition, engine: FilesSqlEngine): ToolDefinition {
  const base = exportTable.description;
  return {
    ...exportTable,
    // The first sentence names every format: it is what a client's tool list shows.
    description: (config: Config) =>
      `${(typeof base === 'function' ? base(config) : base).replace(exportTableLead(localFormats), exportTableLead('CSV, Excel (XLSX) or Parquet'))} ${parquetSentence}`,
    inputSchema: withParquetFormat(exportTable.inputSchema) as ToolDefinition['inputSchema'],
    handler(args, context) {
      return args.format === 'parquet' ? exportParquet(engine, args, context) : exportTable.handler(args, context);
    },
  };
}
