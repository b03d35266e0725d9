/**
 * Messages between the host (main thread) and a script worker. Two channels:
 * `parentPort` carries the run and its outcome (asynchronous), a dedicated
 * MessagePort carries the host-API calls the worker makes while QuickJS waits
 * (synchronous: the worker blocks on an Atomics flag until the reply is posted).
 */
import type { SerializedError } from '../errors.js';
import type { ScriptLimits } from './script-limits.js';

/** Main → worker: start one run. */
export interface RunMessage {
  type: 'run';
  runId: number;
  /** The script exactly as written (inline code or the file's text). */
  source: string;
  /** Name used in stacks and syntax errors: the script's sandbox path, or "inline.js". */
  filename: string;
  /** The `args` value as JSON text. */
  argsJson: string;
  limits: ScriptLimits;
  /** Epoch milliseconds at which the interrupt handler stops the script. */
  deadline: number;
}

/** Worker → main, sent once after the worker module has loaded. */
export interface ReadyMessage {
  type: 'ready';
}

/** Worker → main: console output, in order, batched. */
export interface ConsoleMessage {
  type: 'console';
  runId: number;
  text: string;
}

/** Worker → main: how a run ended. */
export interface DoneMessage {
  type: 'done';
  runId: number;
  outcome: RunOutcome;
}

export type WorkerMessage = ReadyMessage | ConsoleMessage | DoneMessage;

export type RunOutcome = { ok: true; resultJson: string; retire: boolean } | { ok: false; error: SerializedError; retire: boolean };

/** Worker → main over the synchronous port: one host-API call. */
export type BridgeRequest =
  | { id: number; op: 'read'; path: string }
  | { id: number; op: 'rows'; path: string; offset: number; limit: number | undefined }
  | { id: number; op: 'list'; dir: string | undefined }
  | { id: number; op: 'write'; path: string; data: Uint8Array };

/** The file slice a `rows` request returns; the worker checks and parses it. */
export interface RowsSlice {
  format: 'jsonl' | 'json';
  /** UTF-8 bytes: the selected JSONL lines, or the whole JSON document. */
  data: Uint8Array;
  /** Row number (0-based) of the first line in `data` (JSONL only). */
  firstRow: number;
  /** Line number (1-based) of the first line in `data`, for error messages (JSONL only). */
  firstLine: number;
}

export type BridgeReply =
  | { id: number; ok: true; op: 'read'; data: Uint8Array; relative: string }
  | { id: number; ok: true; op: 'rows'; slice: RowsSlice; relative: string }
  | { id: number; ok: true; op: 'list'; json: string }
  | { id: number; ok: true; op: 'write'; relative: string; bytes: number }
  | { id: number; ok: false; error: SerializedError; fatal: boolean };
