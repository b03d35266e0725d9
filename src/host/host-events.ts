import type { ScreeningCounts, SpillRef } from '../spill/spill-ref.js';
import type { Attachment } from './tool.js';

/** One finished call, as operators count it (metrics subscribe to the `call` event). */
export interface CallFinished {
  tool: string;
  outcome: 'ok' | 'error';
  errorCode?: string;
  durationMs: number;
  /** Files the call's result was written to (the spill and its binary parts). */
  files: readonly SpillRef[];
  /** What screening found in the result. */
  screening?: ScreeningCounts;
}

/** A file-building job on the worker pool: submitted, started on a thread, finished (emitted by the file tools). */
export type FileJobEvent =
  | { phase: 'queued'; kind: string }
  | { phase: 'started'; kind: string; waitMs: number }
  | { phase: 'finished'; kind: string; outcome: 'ok' | 'failed'; started: boolean; errorCode?: string; runMs?: number; totalMs: number };

/** A retention sweep that ended (emitted by retention's scheduler). */
export interface SweepFinished {
  outcome: 'ok' | 'locked' | 'failed';
  durationMs?: number;
  filesRemoved: number;
  bytesRemoved: number;
}

/** One file of a conversation that changed; `path` is relative to the conversation folder. */
export interface FileChanged {
  conversationId: string;
  principal: string;
  path: string;
  change: 'written' | 'removed';
}

export interface HostEvents {
  /** A tool was added or removed, or a configuration change altered how a tool is listed (its description). */
  'tools-changed': [];
  /** A file appeared in a conversation's outputs/ (a tool's export, or any other route: see src/watch/). */
  attachment: [{ conversationId: string; principal: string; attachment: Attachment }];
  call: [CallFinished];
  /** A file in a conversation was written (a spill, an output) or removed (retention): resource subscriptions listen. */
  'file-changed': [FileChanged];
  /** An embedder's resource (host.resources) changed or went. */
  'resource-updated': [{ uri: string }];
  /** A prompt was registered or removed. */
  'prompts-changed': [];
  'file-job': [FileJobEvent];
  sweep: [SweepFinished];
  /** A front (HTTP or stdio) is up and its banner printed: services that keep something warm for a first call start it now. */
  serving: [];
}
