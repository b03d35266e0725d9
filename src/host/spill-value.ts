import { keepWithinQuota } from '../retention/disk-quota-guard.js';
import { assertConversationId } from '../sandbox/index.js';
import { presentResult } from '../spill/present-result.js';
import type { SpillRef } from '../spill/spill-ref.js';
import { unwrapValue } from '../spill/unwrap.js';
import type { Host } from './host.js';

export interface SpillValueInput {
  conversationId: string;
  /** The tool that produced the value (names the file, picks per-tool spill settings). */
  tool: string;
  callId: string;
  /** A string is text; anything else is JSON. */
  value: unknown;
  isError?: boolean;
}

/**
 * Writes a result that did not go through `execute` (one already in a
 * conversation's history) to the sandbox by the spill rules, whatever its size.
 * Returns the file's facts, or undefined when it could not be written (logged).
 */
export async function spillValue(host: Host, input: SpillValueInput): Promise<SpillRef | undefined> {
  assertConversationId(input.conversationId);
  const sandbox = host.sandbox.conversation(input.conversationId);
  const log = host.logger.child({ conversationId: input.conversationId, tool: input.tool, callId: input.callId });
  const isError = input.isError === true;
  const view = await presentResult({
    sandbox,
    tool: input.tool,
    callId: input.callId,
    result: isError ? { kind: 'text', text: typeof input.value === 'string' ? input.value : JSON.stringify(input.value), binaries: [] } : unwrapValue(input.value),
    isError,
    settings: { ...host.spillSettings(input.tool), spill: true, thresholdChars: 0 },
    now: new Date(),
    onSpillFailure: (error) => log.warn({ err: error }, 'spill failed; the result stays in the prompt'),
  });
  await keepWithinQuota({ root: host.sandbox, sandbox, retention: host.config.retention, written: [view.spill, ...view.files], logger: log });
  return view.spill;
}
