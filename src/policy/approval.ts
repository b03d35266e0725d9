import type { ApprovalDigest } from './approval-digest.js';

/** Where part of a delegating call's expanded arguments came from, for the approval prompt. */
export interface ArgumentSource {
  /** JSON Pointer into the expanded arguments ("" = the whole object). */
  pointer: string;
  /** "args/issue.json", "results/0012-get_issue.jsonl#/3/body", or "overrides" (values the model wrote). */
  from: string;
}

export interface ApprovalRequest {
  tool: string;
  /** The expanded arguments that will actually be sent. */
  arguments: unknown;
  /** The call as the model wrote it, when it differs (delegating calls). */
  calledAs?: { tool: string; arguments: unknown };
  /** Delegating calls: which file (or the model's overrides) each part of `arguments` came from; the most specific pointer wins. */
  sources?: ArgumentSource[];
  conversationId: string;
  /** The exact bytes that will be sent, their SHA-256, and where the full arguments are when too large to show (set by the host). */
  digest?: ApprovalDigest;
  /** Delegating calls: secrets screening detected in the arguments, by kind and JSON path (never the values). */
  secrets?: DetectedSecret[];
}

/** A secret found in a delegating call's arguments: its kind and where it sits. */
export interface DetectedSecret {
  kind: string;
  /** A JSON path into the arguments ("body", "items[2].token"); absent for the whole value. */
  field?: string;
}

/** true approves; false (or a thrown error) declines. */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<boolean>;
