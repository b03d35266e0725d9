import type { ScreeningReport } from '../screening/index.js';
import type { TableProfile } from './profile.js';
import type { ColumnType } from './table.js';

export type SpillFormat = 'jsonl' | 'json' | 'text' | 'binary';

/** The facts about one spilled file, as written to its metadata and returned with the result. */
export interface SpillRef {
  /** Relative to the conversation folder, e.g. "results/0007-query_sql.jsonl". */
  path: string;
  format: SpillFormat;
  bytes: number;
  /** Tables: rows actually written. */
  rows?: number;
  /** Tables: column names in first-seen order. */
  columns?: string[];
  columnTypes?: Record<string, ColumnType>;
  /** Tables found inside an object: the member that held the rows and the other members. */
  envelope?: { rowsKey: string; fields: Record<string, unknown> };
  /** Tables: types, nulls, min/max, distinct and frequent values per column, computed while writing. */
  profile?: TableProfile;
  mimeType?: string;
  tool: string;
  callId: string;
  createdAt: string;
  expiresAt: string;
  /** True when the result held invalid Unicode (lone surrogates) that UTF-8 cannot carry; replaced by U+FFFD. */
  replacedInvalidUnicode?: boolean;
  /** What screening found: counts, kinds and places (never the values), and whether the file keeps the originals. */
  screening?: ScreeningReport;
}

/** What travels in an MCP result's `_meta["spillway/spill"]`. */
export interface SpillMeta {
  path: string;
  format: SpillFormat;
  bytes: number;
  rows?: number;
  columns?: string[];
  expiresAt: string;
  /**
   * What screening found in the file: counts (secrets, redacted unless `secretAction` is "flag";
   * injected instructions; invisible Unicode) and each finding's kind and place.
   */
  screening?: ScreeningCounts & Pick<ScreeningReport, 'findings' | 'unlisted'>;
}

/** The counts of a screening report, as results and metrics carry them. */
export interface ScreeningCounts {
  secretAction: 'redact' | 'flag';
  secrets: number;
  injections: number;
  invisible: number;
  /** Secrets per kind. */
  kinds: Record<string, number>;
  /** true when the file keeps the original values of redacted secrets. */
  kept?: boolean;
}

export function toScreeningCounts(report: ScreeningReport): ScreeningCounts {
  const counts: ScreeningCounts = {
    secretAction: report.secretAction,
    secrets: report.secrets,
    injections: report.injections,
    invisible: report.invisible,
    kinds: report.kinds,
  };
  if (report.kept !== undefined) counts.kept = report.kept;
  return counts;
}

export const spillMetaKey = 'spillway/spill';

/** `_meta` key of a result's screening counts (inline results too: they have no spill reference). */
export const screeningMetaKey = 'spillway/screening';

export function toSpillMeta(ref: SpillRef): SpillMeta {
  const meta: SpillMeta = { path: ref.path, format: ref.format, bytes: ref.bytes, expiresAt: ref.expiresAt };
  if (ref.rows !== undefined) meta.rows = ref.rows;
  if (ref.columns !== undefined) meta.columns = ref.columns;
  if (ref.screening !== undefined) {
    const { findings, unlisted } = ref.screening;
    meta.screening = { ...toScreeningCounts(ref.screening), findings, ...(unlisted === undefined ? {} : { unlisted }) };
  }
  return meta;
}
