import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** A single message (one line) larger than this closes the transport with an error. */
  maxMessageBytes: number;
  /** Checks one parsed line as a JSON-RPC message (the SDK's schema, passed in so this module loads without it); throws if it is not one. */
  parseMessage: (value: unknown) => JSONRPCMessage;
}

const newline = 0x0a;
const closeGraceMs = 2000;

/** How the child ended: its exit code, or the signal that killed it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A line from the server longer than the cap: the connection is closed, and this is why. */
export class MessageTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the server sent a message of at least ${bytes} bytes, over the cap of ${limit} bytes (upstream.maxMessageBytes)`);
    this.name = 'MessageTooLargeError';
  }
}

/**
 * An MCP client transport over a child's stdin/stdout, for the SDK's Client.
 * Why not the SDK's StdioClientTransport: its read buffer concatenates the
 * whole pending buffer on every chunk and rescans it for a newline, which is
 * quadratic in the message size: a 20 MB result spent 11.5 s of 17 s in
 * Buffer.concat. Here chunks are kept in a list and joined once, when the
 * line ends. Framing (one JSON-RPC message per line), the SDK's message
 * schema and the close sequence (end stdin, SIGTERM, SIGKILL) are the same.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The child's stderr, available before start so no early output is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  /** Set by an over-size line: nothing more is read (the rest of that line is not a message), and the transport closes. */
  private tooLarge: MessageTooLargeError | undefined;
  private exit: ChildExit | undefined;
  private spawnedPid: number | null = null;

  constructor(private readonly options: StdioTransportOptions) {}

  /** The child's pid once spawned (kept after it exits, so errors can name the process). */
  get pid(): number | null {
    return this.spawnedPid;
  }

  /** How the child ended, once it has (undefined while it runs). */
  get exitStatus(): ChildExit | undefined {
    return this.exit;
  }

  /** The over-size message that closed this transport, if one did. */
  get messageTooLarge(): MessageTooLargeError | undefined {
    return this.tooLarge;
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('StdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: this.options.env,
        ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd }),
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        this.spawnedPid = child.pid ?? null;
        resolve();
      });
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        this.exit = { code, signal };
        this.child = undefined;
        this.chunks = [];
        this.pendingBytes = 0;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (stdin === undefined || stdin === null) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const wait = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, closeGraceMs).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    await wait();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await wait();
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** Stops a child that no longer answers: SIGTERM at once, SIGKILL if it is still there after the grace period. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.kill('SIGTERM');
    await Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, closeGraceMs).unref())]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  private receive(chunk: Buffer): void {
    if (this.tooLarge !== undefined) return;
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(newline, start);
      if (end === -1) {
        if (start < chunk.length) this.hold(chunk.subarray(start));
        return;
      }
      const piece = chunk.subarray(start, end);
      const line = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece], this.pendingBytes + piece.length);
      this.chunks = [];
      this.pendingBytes = 0;
      start = end + 1;
      if (line.length > this.options.maxMessageBytes) {
        this.oversize(line.length);
        return;
      }
      this.deliver(line);
    }
  }

  private hold(part: Buffer): void {
    this.chunks.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.options.maxMessageBytes) this.oversize(this.pendingBytes);
  }

  private oversize(bytes: number): void {
    this.chunks = [];
    this.pendingBytes = 0;
    this.tooLarge = new MessageTooLargeError(bytes, this.options.maxMessageBytes);
    this.onerror?.(this.tooLarge);
    void this.kill();
  }

  private deliver(line: Buffer): void {
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim().length === 0) return;
    let message: JSONRPCMessage;
    try {
      message = this.options.parseMessage(JSON.parse(text));
    } catch (error) {
      // Servers sometimes print stray lines on stdout; report, keep reading.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }
}
