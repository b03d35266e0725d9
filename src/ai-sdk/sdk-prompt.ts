import { readPrompt, replaceParts, type GuardPrompt, type ToolResultSlot } from '../context-guard/guard-prompt.js';

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
  return readPrompt<SdkPart>(
    messages,
    (part) => {
      const output = isToolResult(part) ? outputOf(part.output) : undefined;
      return output === undefined || !isToolResult(part) ? undefined : { toolCallId: part.toolCallId, toolName: part.toolName, ...output };
    },
    serialize,
  );
}

/** The prompt with the chosen results replaced by their reference text; untouched messages are the same objects. */
export function applyToSdkPrompt<M extends SdkMessage>(messages: readonly M[], replacements: Map<ToolResultSlot, string>): M[] {
  return replaceParts<SdkPart, M>(messages, replacements, (part, slot, text) => {
    const replaced: SdkToolResultPart = { ...(part as SdkToolResultPart), output: { type: slot.isError ? 'error-text' : 'text', value: text } };
    return replaced;
  });
}
