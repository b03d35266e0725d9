import type { Stream } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { UpstreamConfig } from '../config/schema.js';
import type { ClientSdk } from './client-sdk.js';
import { StdioTransport, type ChildExit, type MessageTooLargeError } from './stdio-transport.js';

export interface CreatedTransport {
  transport: Transport;
  kind: 'stdio' | 'http';
  /** The child's stderr (stdio only), piped so it never lands on spillway's stdout and can be quoted in errors. */
  stderr: Stream | null;
  /** The child's pid once started (stdio only). */
  pid(): number | null;
  /** How the child ended (stdio only, once it has). */
  exitStatus(): ChildExit | undefined;
  /** The over-size message that closed the transport (stdio only). */
  messageTooLarge(): MessageTooLargeError | undefined;
  /** Ends a server that stopped answering: the child is killed (SIGTERM, then SIGKILL); an HTTP session is closed. */
  kill(): Promise<void>;
}

/**
 * The client transport for one upstream entry: a child process spoken to over
 * stdio (spillway's own line transport, see stdio-transport.ts), or the SDK's
 * Streamable HTTP transport. A stdio child gets the SDK's safe
 * default environment plus the entry's `env` (never spillway's whole
 * environment, which may hold secrets meant for other upstreams).
 */
export function createTransport(sdk: ClientSdk, entry: UpstreamConfig, maxMessageBytes: number): CreatedTransport {
  if ('command' in entry) {
    const transport = new StdioTransport({
      command: entry.command,
      args: entry.args ?? [],
      env: { ...sdk.getDefaultEnvironment(), ...(entry.env ?? {}) },
      parseMessage: (value) => sdk.JSONRPCMessageSchema.parse(value),
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
      maxMessageBytes,
    });
    return {
      transport,
      kind: 'stdio',
      stderr: transport.stderr,
      pid: () => transport.pid,
      exitStatus: () => transport.exitStatus,
      messageTooLarge: () => transport.messageTooLarge,
      kill: () => transport.kill(),
    };
  }
  const transport = new sdk.StreamableHTTPClientTransport(new URL(entry.url), {
    requestInit: { headers: { ...(entry.headers ?? {}) } },
  });
  return {
    transport,
    kind: 'http',
    stderr: null,
    pid: () => null,
    exitStatus: () => undefined,
    messageTooLarge: () => undefined,
    kill: () => transport.close(),
  };
}

/** What to show for an upstream's target without leaking secrets (no env values, no headers, no URL credentials). */
export function describeTarget(entry: UpstreamConfig): string {
  if ('command' in entry) return [entry.command, ...(entry.args ?? [])].join(' ');
  try {
    const url = new URL(entry.url);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return entry.url;
  }
}
