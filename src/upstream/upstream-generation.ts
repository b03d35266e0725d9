import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CreatedTransport } from './create-transport.js';
import { StderrTail } from './stderr-tail.js';

const stderrInErrorChars = 2000;

/**
 * One attempt at an upstream: its SDK client, its transport (for stdio, one
 * child process) and what that process wrote to stderr. Errors quote the
 * stderr of their own generation only, so a process that died never lends
 * its last words to the next one's failures.
 */
export class UpstreamGeneration {
  readonly stderr = new StderrTail();
  /** The last transport-level error (a stray stdout line, a refused request), quoted when the connection then drops. */
  transportError: string | undefined;
  /** Set when spillway itself ended this generation (handshake deadline, restart), which then is the reason. */
  ended: string | undefined;

  constructor(
    readonly number: number,
    readonly upstream: string,
    readonly client: Client,
    readonly created: CreatedTransport,
  ) {
    this.stderr.attach(created.stderr);
  }

  pid(): number | undefined {
    return this.created.pid() ?? undefined;
  }

  /**
   * Why the connection ended, as specifically as known: spillway ended it (and
   * why), an over-size message (with the cap), the process's exit code or
   * signal, the last transport error.
   */
  endReason(): string | undefined {
    if (this.ended !== undefined) return this.ended;
    const tooLarge = this.created.messageTooLarge();
    if (tooLarge !== undefined) return tooLarge.message;
    const exit = this.created.exitStatus();
    if (exit !== undefined) {
      if (exit.signal !== null) return `the server process (pid ${this.pidText()}) was killed by signal ${exit.signal}`;
      if (exit.code !== null) return `the server process (pid ${this.pidText()}) exited with code ${exit.code}`;
    }
    return this.transportError;
  }

  /** Appends this process's recent stderr (where servers print their tracebacks) to a message. */
  withStderr(message: string): string {
    const tail = this.stderr.read();
    if (tail.length === 0) return message;
    return `${message}\n--- last stderr of ${this.upstream} (process ${this.pidText()}) ---\n${tail.slice(-stderrInErrorChars)}`;
  }

  private pidText(): string {
    return String(this.created.pid() ?? '?');
  }
}
