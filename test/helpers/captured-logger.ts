import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LogLine = { level: number; msg: string } & Record<string, unknown>;

/** A pino logger (level info) whose lines are collected, parsed and raw, for tests that check what was logged. */
export function capturedLogger(base?: Record<string, unknown>): { logger: Logger; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { logger: pino({ level: 'info', ...(base === undefined ? {} : { base }) }, stream), lines, raw };
}
