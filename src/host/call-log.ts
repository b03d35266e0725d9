/** The levels of RFC 5424 that MCP logging uses, least severe first. */
export const callLogLevels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type CallLogLevel = (typeof callLogLevels)[number];

/**
 * One thing worth telling the caller about its own call while it runs or as it
 * ends: a spill, a cut, a refusal, what screening found, a tool's own message.
 * MCP sends these as notifications/message at the level the client asked for.
 */
export interface CallLogEntry {
  level: CallLogLevel;
  message: string;
  /** Machine-readable facts (paths, counts, codes): never a result's values. */
  data?: Record<string, unknown>;
}

export function isCallLogLevel(value: unknown): value is CallLogLevel {
  return typeof value === 'string' && (callLogLevels as readonly string[]).includes(value);
}

/** True when `level` is at least as severe as `threshold`. */
export function atLeast(level: CallLogLevel, threshold: CallLogLevel): boolean {
  return callLogLevels.indexOf(level) >= callLogLevels.indexOf(threshold);
}
