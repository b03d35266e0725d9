import { pino, type Logger } from 'pino';

export type { Logger };

/** Where log lines go: stderr by default; tests pass their own. */
export interface LogDestination {
  write(line: string): unknown;
}

/**
 * Structured JSON logs on stderr (stdout may be the MCP stdio transport).
 * Lines carry callId and conversationId through child loggers; argument values
 * and file contents are logged only at debug level.
 */
export function createLogger(level: string = 'info', destination: LogDestination = stderrDestination()): Logger {
  return pino({ level, base: { service: 'spillway' } }, destination);
}

/** A logger that drops everything (tests, library users who bring none). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** A logger whose lines wait until a start is over, so a start that fails ends with the CLI's one line, not a log. */
export interface StartupLogger {
  logger: Logger;
  /** The start succeeded: writes the held lines, in order, and lets every later line through. */
  release(): void;
  /** The start failed: drops the held lines and every later one (the process is about to end). */
  discard(): void;
}

/** At most this many lines wait; a start that logs more is shown as it goes. */
const maxHeldLines = 1000;

export function createStartupLogger(level: string, destination: LogDestination = stderrDestination()): StartupLogger {
  let state: 'holding' | 'released' | 'discarded' = 'holding';
  let held: string[] = [];
  const release = () => {
    if (state !== 'holding') return;
    state = 'released';
    for (const line of held) destination.write(line);
    held = [];
  };
  const gate: LogDestination = {
    write(line) {
      if (state === 'released') destination.write(line);
      else if (state === 'holding') {
        held.push(line);
        if (held.length >= maxHeldLines) release();
      }
      return true;
    },
  };
  return {
    logger: createLogger(level, gate),
    release,
    discard() {
      state = 'discarded';
      held = [];
    },
  };
}

function stderrDestination(): LogDestination {
  return pino.destination({ fd: 2, sync: false });
}
