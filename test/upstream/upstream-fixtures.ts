import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../src/config/package-root.js';
import type { UpstreamManager, UpstreamReport } from '../../src/upstream/upstream-manager.js';

/** The compiled recording upstream (test/fixtures/recording-upstream.ts). */
export const recordingUpstream = fileURLToPath(new URL('../fixtures/recording-upstream.js', import.meta.url));

/** The published reference filesystem server, installed as a dev dependency. */
export const filesystemServerBin = path.join(packageRoot, 'node_modules', '.bin', 'mcp-server-filesystem');
export const hasFilesystemServer = existsSync(filesystemServerBin);

export const spillwayBin = path.join(packageRoot, 'bin', 'spillway.js');

/** The config entry that starts the recording upstream writing into `recordDir`. */
export function recordingEntry(recordDir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [recordingUpstream], env: { RECORD_DIR: recordDir }, ...extra };
}

/** Polls until `check` returns a value (not undefined/false); a generous bound against a hang, not a timing assertion. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, deadlineMs = 120_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A Streamable HTTP MCP server (stateless) with one `echo` tool on `port` (0: any free port); records the headers of every request.
 * `freeze(true)` makes it accept requests and never answer them (a hung server), `freeze(false)` answers again.
 */
export async function httpUpstream(port = 0): Promise<{ url: string; headers: IncomingHttpHeaders[]; freeze(frozen: boolean): void; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  let frozen = false;
  const server = createServer((request, response) => {
    headers.push(request.headers);
    if (frozen) return;
    const mcp = new Server({ name: 'http-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } }],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, (call) => ({ content: [{ type: 'text', text: `echo: ${String(call.params.arguments?.text)}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    headers,
    freeze: (value) => {
      frozen = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The compiled faulty upstream (test/fixtures/faulty-upstream.ts). */
export const faultyUpstream = fileURLToPath(new URL('../fixtures/faulty-upstream.js', import.meta.url));

/** The config entry that starts the faulty upstream with `fault`, keeping its state in `stateDir`. */
export function faultyEntry(stateDir: string, fault: string, env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [faultyUpstream], env: { STATE_DIR: stateDir, FAULT: fault, ...env } };
}

/** Resolves with the upstream's report once `check` holds for it: at once, or at the status event that makes it hold. */
export function untilStatus(manager: UpstreamManager, name: string, check: (report: UpstreamReport) => boolean): Promise<UpstreamReport> {
  return new Promise((resolve) => {
    const test = (): boolean => {
      const report = manager.reports().find((candidate) => candidate.name === name);
      if (report === undefined || !check(report)) return false;
      manager.off('status', test);
      resolve(report);
      return true;
    };
    if (!test()) manager.on('status', test);
  });
}
