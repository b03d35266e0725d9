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
