import type { SerializedError } from '../errors.js';
import type { ScreeningCounts, SpillRef } from '../spill/spill-ref.js';
import type { Attachment } from './tool.js';

/** What `execute` returns: what the model reads plus machine-readable facts. */
export interface ExecuteResult {
  callId: string;
  tool: string;
  isError: boolean;
  /** The text the model reads (result or whole-record prefix, then file references). */
  text: string;
  /** The spilled file, when the result was written to one. */
  spill?: SpillRef;
  /** Binary blocks (images, audio) written as files. */
  files: SpillRef[];
  /** True when `text` shows only part of the result. */
  truncated: boolean;
  /** The result (JSON value, or the text) when the model sees it whole. */
  value?: unknown;
  /** The host's own sentences in `text`: how much of the result is shown, where the file is. */
  notes: string[];
  /** Files the call placed in outputs/ (download cards). */
  attachments: Attachment[];
  /** What screening found in the result (secrets redacted or flagged, injected instructions, invisible Unicode). */
  screening?: ScreeningCounts;
  error?: SerializedError;
  durationMs: number;
}
