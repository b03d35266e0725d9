import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stderr (stdout may be the MCP stdio transport).
 * Lines carry callId and conversationId through child loggers; argument values
 * and file contents are logged only at debug level.
 */
export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { service: 'spillway' } }, pino.destination({ fd: 2, sync: false }));
}

/** A logger that drops everything (tests, library users who bring none). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
