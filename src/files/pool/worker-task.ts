import type { MessagePort } from 'node:worker_threads';
import type { SerializedError } from '../../errors.js';
import type { DocumentSpec } from '../formats/document-spec.js';
import type { SelectionProgress, SelectionStats } from '../selection/select-rows.js';
import type { OutputColumn, Selection } from '../selection/selection.js';
import type { SourceLocation } from '../sources/table-source.js';
import type { ColumnFormat } from '../columns/column-format.js';

/**
 * Where a worker writes its file. Tools write into the conversation's outputs/
 * (a taken name gets "name (2).ext" or a refusal); the CLI writes to the path
 * its user gave.
 */
export type OutputTarget =
  | {
      kind: 'sandbox';
      root: string;
      principal: string;
      conversationId: string;
      filename: string;
      onExisting: 'rename' | 'refuse';
      /** Set for a queued job (a fleet): a run of the same job again never publishes a second file (see publish-once.ts). */
      jobId?: string;
    }
  | { kind: 'local'; path: string; overwrite: boolean };

/** The worker task modules, one per output format. */
export type WorkerKind = 'csv' | 'xlsx' | 'docx' | 'pptx' | 'markdown';

/** What a fleet's job may build: a file (a worker module above), a chart, or a PNG of an SVG image. */
export type JobKind = WorkerKind | 'chart' | 'raster';

interface TaskBase {
  /** Receives {@link SelectionProgress} messages when the caller shows progress. */
  progressPort?: MessagePort;
}

/** One table of an XLSX workbook: its source, selection and sheet name. */
export interface SheetPart {
  source: SourceLocation;
  selection: Selection;
  /** Sheet name; default "Data", or the source's tool name when a workbook has several sources. */
  sheet?: string;
}

/** export_table (csv, xlsx). */
export interface TableTask extends TaskBase {
  source: SourceLocation;
  selection: Selection;
  output: OutputTarget;
  /** XLSX only: rows a sheet may hold, header included (Excel's limit unless a test lowers it). */
  sheetRowLimit?: number;
  /** XLSX: the first table's sheet name. */
  sheet?: string;
  /** XLSX: more tables, a sheet (or more) each, after the first. */
  moreSheets?: SheetPart[];
  /** BCP 47 locale for date order and currency symbols (default en-US). */
  locale?: string;
  /** IANA zone that timestamps with offsets and epoch numbers are shown in (default UTC). */
  timeZone?: string;
  /** CSV: a UTF-8 byte-order mark first (default true). */
  bom?: boolean;
  /** CSV: field separator (default ","). */
  delimiter?: ',' | ';' | '\t';
  /** CSV: apostrophe in front of text a spreadsheet would evaluate (default true). */
  formulaGuard?: boolean;
  /** XLSX: the font family of header and body cells (documents.fontFamily; default Arial). */
  fontFamily?: string;
}

/** build_document (docx, pptx). Table sources inside the spec are resolved in the same conversation. */
export interface DocumentTask extends TaskBase {
  spec: DocumentSpec;
  /** Where table sources are read: the conversation sandbox (tools) or the filesystem (CLI). */
  sources: { kind: 'sandbox'; root: string; principal: string; conversationId: string } | { kind: 'local' };
  output: OutputTarget;
  maxTableRows: number;
  /** The font family of headers and body (documents.fontFamily; default Arial) unless the spec names one. */
  fontFamily?: string;
}

/** draw_table. */
export interface MarkdownTask extends TaskBase {
  source: SourceLocation;
  selection: Selection;
  maxRows: number;
  /** UTF-8 bytes the table may take, so it and its footer fit what the model reads inline. */
  maxBytes?: number;
  locale?: string;
  /** IANA zone that timestamps with offsets and epoch columns are shown in (default UTC). */
  timeZone?: string;
}

/** What a worker reports about a file it wrote. */
export interface FileResult {
  /** Absolute path of the final file. */
  path: string;
  bytes: number;
  /** Data rows written (tables), or table rows in a document. */
  rows: number;
  /** The name asked for, when the file had to take another because that one existed. */
  requestedName?: string;
  /** Things the caller should be told (sheets split, cells cut, mixed columns, ...). */
  notes: string[];
}

export interface TableResult extends FileResult {
  columns: OutputColumn[];
  stats: SelectionStats;
  /** XLSX: the number of sheets (more than one when the rows did not fit one, or several sources). */
  sheets?: number;
  /** XLSX: what each source became. */
  parts?: SheetReport[];
}

export interface SheetReport {
  source: string;
  sheets: string[];
  rows: number;
  columns: OutputColumn[];
  formats: ColumnFormat[];
  stats: SelectionStats;
}

export interface DocumentResult extends FileResult {
  tables: { source: string; rows: number; columns: OutputColumn[]; stats: SelectionStats }[];
  /** PPTX: slides written. */
  slides?: number;
  /** DOCX: the page orientation chosen. */
  orientation?: 'portrait' | 'landscape';
}

export interface MarkdownResult {
  markdown: string;
  /** Rows shown: the first `rows` of the `selectedRows` selected. */
  rows: number;
  selectedRows: number;
  /** Cells cut with "…" among the rows shown. */
  cutCells: { count: number; first: { row: number; column: string }[] };
  columns: OutputColumn[];
  /** Per column: its times were moved into the stated zone (its header names it). */
  zoned: boolean[];
  stats: SelectionStats;
}

/** A worker's answer: errors travel as plain data and are rebuilt with SpillwayError.fromJSON. */
export type WorkerReply<T> = { ok: true; result: T } | { ok: false; error: SerializedError };

export type ProgressMessage = SelectionProgress;
