/** The pre-model-call context guard, framework-free (the AI SDK middleware in spillway/ai-sdk is an adapter over it). */
export { ContextGuard, type ContextGuardOptions, type ResultSpiller } from './context-guard.js';
export type { GuardReport, ReplacedResult } from './guard-report.js';
export { lastTurnStart, type GuardPrompt, type ToolResultSlot } from './guard-prompt.js';
export { createMessageGuard, guardPlainMessages, type GuardedMessages, type PlainMessage, type PlainPart, type PlainToolResult } from './plain-messages.js';
export { byteRatioCounter, counterForModel, encodingForModel, pessimisticBytesPerToken, type TokenCounter } from './token-counter.js';
export { hostSpiller } from './host-spiller.js';
