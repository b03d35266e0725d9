import { ContextGuard, type ContextGuardOptions } from './context-guard.js';
import type { GuardReport } from './guard-report.js';
import { readPrompt, replaceParts, type GuardPrompt, type ToolResultSlot } from './guard-prompt.js';

/** A tool result in a plain message: `result` is text (a string) or any JSON value. */
export interface PlainToolResult {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  result: unknown;
  isError?: boolean;
}

/** Any other part (text, tool calls, images): counted, passed through untouched. */
export interface PlainOtherPart {
  type: string;
  [key: string]: unknown;
}

export type PlainPart = PlainToolResult | PlainOtherPart;

/** A chat message of any stack, reduced to role and content. */
export interface PlainMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | PlainPart[];
}

export interface GuardedMessages {
  /** The messages to send: the input itself when nothing was replaced, else a copy sharing every untouched message. */
  messages: PlainMessage[];
  report: GuardReport;
}

function isToolResult(part: PlainPart): part is PlainToolResult {
  return part.type === 'tool-result' && typeof part.toolCallId === 'string' && typeof part.toolName === 'string';
}

function resultText(result: unknown): string {
  return typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
}

/** Reads a plain message list into what the guard measures. */
export function plainPrompt(messages: readonly PlainMessage[]): GuardPrompt {
  return readPrompt<PlainPart>(
    messages,
    (part) =>
      isToolResult(part)
        ? { toolCallId: part.toolCallId, toolName: part.toolName, text: resultText(part.result), value: part.result, isError: part.isError === true }
        : undefined,
    (part) => JSON.stringify(part),
  );
}

/** The messages with the chosen results replaced; untouched messages are the same objects. */
export function applyToPlain(messages: readonly PlainMessage[], replacements: Map<ToolResultSlot, string>): PlainMessage[] {
  return replaceParts<PlainPart, PlainMessage>(messages, replacements, (part, _slot, text) => ({ ...(part as PlainToolResult), result: text }));
}

/**
 * The context guard without any framework: give it the message list you are
 * about to send; it returns the list to send instead and what it replaced.
 * Keep one guard per conversation so replacements stay the same from call to call.
 *
 * @example
 * const guard = createMessageGuard({ contextWindow: 128_000, spill: hostSpiller(host, { conversationId }) });
 * const { messages, report } = await guard(history);
 */
export function createMessageGuard(options: ContextGuardOptions): (messages: readonly PlainMessage[]) => Promise<GuardedMessages> {
  const guard = new ContextGuard(options);
  return (messages) => guardPlainMessages(guard, messages);
}

export async function guardPlainMessages(guard: ContextGuard, messages: readonly PlainMessage[]): Promise<GuardedMessages> {
  const { replacements, report } = await guard.plan(plainPrompt(messages));
  return { messages: applyToPlain(messages, replacements), report };
}
