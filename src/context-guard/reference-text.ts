import { describeColumns, describeKind } from '../spill/describe-contents.js';
import { formatBytes } from '../util/format.js';

/** The facts a replacement names (a SpillRef without its timestamps). */
export interface ReferenceFacts {
  path: string;
  format: string;
  bytes: number;
  rows?: number | undefined;
  columns?: string[] | undefined;
}

const referencePattern = /\[spillway\] Saved to (\S+) \([^\n]*/;

/** The spill reference sentence inside a result the host produced ("[spillway] Saved to results/…"), if any. */
export function findReference(text: string): { sentence: string; path: string } | undefined {
  const match = referencePattern.exec(text);
  if (match === null) return undefined;
  return { sentence: match[0], path: match[1] as string };
}

/** A reference sentence for a file the guard wrote itself: no expiry time, so the same file reads the same on every call. */
export function describeFacts(facts: ReferenceFacts): string {
  return `[spillway] Saved to ${facts.path} (${describeKind(facts)}, ${formatBytes(facts.bytes)}).${describeColumns(facts.columns)}`;
}

/**
 * What the model reads instead of a replaced result. Built only from the
 * call and its reference, never from a clock or a random id, so the same
 * result is replaced by the same bytes on every call (prompt caches keep hitting).
 */
export function replacementText(toolName: string, toolCallId: string, reference: string): string {
  return [
    `[spillway] The result of ${toolName} (call ${toolCallId}) was taken out of the prompt to keep it within the context window; the file below holds all of it.`,
    'Reread it with read_file or search_file, or pass the path to tools that take one; do not guess its content.',
    reference,
  ].join('\n');
}
