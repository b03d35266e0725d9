/** A tool result in a prompt, as the guard sees it (whatever the message format). */
export interface ToolResultSlot {
  messageIndex: number;
  partIndex: number;
  toolCallId: string;
  toolName: string;
  /** The result as the model reads it: text, or JSON serialized. */
  text: string;
  /** The result to write to a file when it has no reference yet (a JSON value or the text). */
  value: unknown;
  isError: boolean;
}

/** A prompt reduced to what the guard measures and may replace. */
export interface GuardPrompt {
  messageCount: number;
  /** Index of the first message of the last turn (never changed). */
  lastTurnStart: number;
  slots: ToolResultSlot[];
  /** Everything that is not a tool result, serialized (counted, never changed). */
  otherTexts: string[];
}

/**
 * The last turn starts at the last message that is not a tool message: the
 * newest user message, or the assistant step whose tool calls the trailing
 * tool messages answer. The model must read it whole to take its next step.
 */
export function lastTurnStart(roles: readonly string[]): number {
  for (let index = roles.length - 1; index >= 0; index -= 1) {
    if (roles[index] !== 'tool') return index;
  }
  return 0;
}

/** A message of any format: a role and either text or a list of parts. */
export interface PromptMessage<P> {
  role: string;
  content: string | readonly P[];
}

/** What a message format says of one part: a tool result's fields, or undefined for any other part. */
export type ReadToolResult<P> = (part: P) => Omit<ToolResultSlot, 'messageIndex' | 'partIndex'> | undefined;

/**
 * Reads a message list of any format into what the guard measures: each tool
 * result a slot, every other part and text serialized and counted.
 */
export function readPrompt<P>(messages: readonly PromptMessage<P>[], readToolResult: ReadToolResult<P>, serialize: (part: P) => string): GuardPrompt {
  const slots: ToolResultSlot[] = [];
  const otherTexts: string[] = [];
  messages.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') {
      otherTexts.push(message.content);
      return;
    }
    message.content.forEach((part, partIndex) => {
      const result = readToolResult(part);
      if (result === undefined) otherTexts.push(serialize(part));
      else slots.push({ messageIndex, partIndex, ...result });
    });
  });
  return { messageCount: messages.length, lastTurnStart: lastTurnStart(messages.map((message) => message.role)), slots, otherTexts };
}

/** The messages with the chosen parts replaced; untouched messages are the same objects. */
export function replaceParts<P, M extends PromptMessage<P>>(
  messages: readonly M[],
  replacements: Map<ToolResultSlot, string>,
  replace: (part: P, slot: ToolResultSlot, text: string) => P,
): M[] {
  if (replacements.size === 0) return messages as M[];
  const copy = [...messages];
  for (const [slot, text] of replacements) {
    const message = copy[slot.messageIndex] as M;
    const parts = [...(message.content as readonly P[])];
    parts[slot.partIndex] = replace(parts[slot.partIndex] as P, slot, text);
    copy[slot.messageIndex] = { ...message, content: parts };
  }
  return copy;
}
