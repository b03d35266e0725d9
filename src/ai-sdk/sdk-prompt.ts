import type { GuardPrompt, ToolResultSlot } from '../context-guard/guard-prompt.js';
import { lastTurnStart } from '../context-guard/guard-prompt.js';

/**
 * The parts of the AI SDK's language-model prompt the guard reads (the same
 * in the v3 specification of ai 6 and the v4 one of ai 7); everything else
 * passes through untouched.
 */
export interface SdkToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: string; value?: unknown; reason?: string };
}

/** Any part: only its type is read, except for tool results. */
export interface SdkPart {
  type: string;
}

export interface SdkMessage {
  role: string;
  content: string | readonly SdkPart[];
}

function isToolResult(part: SdkPart): part is SdkToolResultPart {
  const candidate = part as Partial<SdkToolResultPart>;
  return part.type === 'tool-result' && typeof candidate.toolCallId === 'string' && typeof candidate.output === 'object' && candidate.output !== null;
}

/** Bytes (file parts) serialize as their base64 length would, without encoding them. */
function serialize(part: unknown): string {
  return JSON.stringify(part, (_key, value: unknown) => (value instanceof Uint8Array ? 'b'.repeat(Math.ceil(value.length / 3) * 4) : value)) ?? '';
}

/** The text and the value of a tool result's output, or undefined for outputs with nothing to replace (a denied execution). */
function outputOf(output: SdkToolResultPart['output']): { text: string; value: unknown; isError: boolean } | undefined {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string' ? { text: output.value, value: output.value, isError: output.type === 'error-text' } : undefined;
    case 'json':
    case 'error-json':
    case 'content':
      return { text: serialize(output.value), value: output.value, isError: output.type === 'error-json' };
    default:
      return undefined;
  }
}

export function sdkPrompt(messages: readonly SdkMessage[]): GuardPrompt {
  const slots: ToolResultSlot[] = [];
  const otherTexts: string[] = [];
  messages.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') {
      otherTexts.push(message.content);
      return;
    }
    message.content.forEach((part, partIndex) => {
      const output = isToolResult(part) ? outputOf(part.output) : undefined;
      if (output === undefined || !isToolResult(part)) {
        otherTexts.push(serialize(part));
        return;
      }
      slots.push({ messageIndex, partIndex, toolCallId: part.toolCallId, toolName: part.toolName, ...output });
    });
  });
  return { messageCount: messages.length, lastTurnStart: lastTurnStart(messages.map((message) => message.role)), slots, otherTexts };
}

/** The prompt with the chosen results replaced by their reference text; untouched messages are the same objects. */
export function applyToSdkPrompt<M extends SdkMessage>(messages: readonly M[], replacements: Map<ToolResultSlot, string>): M[] {
  if (replacements.size === 0) return messages as M[];
  const copy = [...messages];
  for (const [slot, text] of replacements) {
    const message = copy[slot.messageIndex] as M;
    const parts = [...(message.content as readonly SdkPart[])];
    const part = parts[slot.partIndex] as SdkToolResultPart;
    const replaced: SdkToolResultPart = { ...part, output: { type: slot.isError ? 'error-text' : 'text', value: text } };
    parts[slot.partIndex] = replaced;
    copy[slot.messageIndex] = { ...message, content: parts };
  }
  return copy;
}
