import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../host/host.js';
import { createHostMetrics } from '../metrics/host-metrics.js';
import { checkReplicaHealth } from '../metrics/replica-health.js';
import { createMcpServer } from './mcp-server.js';

export interface HttpFrontOptions {
  host: string;
  port: number;
  /** URL path of the MCP endpoint, e.g. "/mcp". */
  path: string;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  /** A session with no request (and no open stream) for this long is closed; its files stay. Default 6 hours. */
  sessionIdleMs?: number;
  /** Clock for the idle check, in epoch milliseconds; tests pass their own. Default Date.now. */
  now?: () => number;
  /** Whether /readyz says ready as soon as the front listens. Default true; pass false and call setReady when startup goes on after listening. */
  ready?: boolean;
}

export interface HttpFront {
  url: string;
  server: HttpServer;
  /** Open MCP sessions (one per conversation). */
  sessionCount(): number;
  /** Closes the sessions idle for sessionIdleMs now (a timer also does this periodically); returns how many. */
  closeIdleSessions(): number;
  /** What /readyz answers (a load balancer sends traffic only while ready); close() sets it false first. */
  setReady(ready: boolean): void;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
  lastSeen: number;
  /** Requests (including open SSE streams) still being answered. */
  active: number;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Serves the host as MCP over Streamable HTTP. Each MCP session is one
 * conversation (its sandbox folder is named after the session id). Also serves
 * GET /healthz (can this replica serve: 503 when a check fails), /readyz
 * (should it get traffic: 503 while starting or shutting down) and /metrics
 * (Prometheus).
 */
export async function startHttpFront(host: Host, options: HttpFrontOptions): Promise<HttpFront> {
  const sessions = new Map<string, Session>();
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const sessionIdleMs = options.sessionIdleMs ?? 6 * 3_600_000;
  const clock = options.now ?? Date.now;
  // Clients that vanish without DELETE would otherwise keep their session objects forever.
  const closeIdleSessions = (): number => {
    const now = clock();
    let closed = 0;
    for (const [id, session] of sessions) {
      if (session.active > 0 || now - session.lastSeen < sessionIdleMs) continue;
      sessions.delete(id);
      closed += 1;
      host.logger.info({ conversationId: id, idleMs: now - session.lastSeen }, 'MCP session closed after being idle');
      session.close().catch(() => undefined);
    }
    return closed;
  };
  let ready = options.ready ?? true;
  // One registry per front: counts from this host only (see src/metrics/).
  const metrics = createHostMetrics(host, { sessions: () => sessions.size });
  const idleTimer = setInterval(closeIdleSessions, Math.max(50, Math.min(60_000, Math.floor(sessionIdleMs / 4))));
  idleTimer.unref();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      host.logger.error({ err: error }, 'HTTP request failed');
      if (!response.headersSent) sendJson(response, 500, jsonRpcError('Internal error'));
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && request.method === 'GET') {
      const health = await checkReplicaHealth(host);
      sendJson(response, health.ok ? 200 : 503, { ...host.health(), status: health.ok ? 'ok' : 'failing', checks: health.checks, sessions: sessions.size });
      return;
    }
    if (url.pathname === '/readyz' && request.method === 'GET') {
      if (!ready) {
        sendJson(response, 503, { ready: false, reason: 'starting or shutting down' });
        return;
      }
      const health = await checkReplicaHealth(host);
      sendJson(response, health.ok ? 200 : 503, health.ok ? { ready: true } : { ready: false, reason: 'a health check fails', checks: health.checks });
      return;
    }
    if (url.pathname === '/metrics' && request.method === 'GET') {
      const text = await metrics.render();
      response.writeHead(200, { 'content-type': metrics.contentType });
      response.end(text);
      return;
    }
    if (url.pathname !== options.path) {
      sendJson(response, 404, { error: `Not found. The MCP endpoint is ${options.path}.` });
      return;
    }
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const body = request.method === 'POST' ? await readJsonBody(request, maxBodyBytes) : undefined;
    if (body === tooLarge) {
      sendJson(response, 413, jsonRpcError(`Request body over ${maxBodyBytes} bytes`));
      return;
    }
    if (body === notJson) {
      sendJson(response, 400, jsonRpcError('Parse error: the body is not JSON', -32700));
      return;
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        sendJson(response, 404, jsonRpcError('Unknown or expired session; start a new one with initialize', -32001));
        return;
      }
      session.lastSeen = clock();
      session.active += 1;
      response.once('close', () => {
        session.active -= 1;
        session.lastSeen = clock();
      });
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(body)) {
      sendJson(response, 400, jsonRpcError('No mcp-session-id header; the first request must be initialize'));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...dnsRebindingProtection(options.host, boundPort()),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, close: () => mcp.close(), lastSeen: clock(), active: 0 });
        host.logger.info({ conversationId: id }, 'MCP session opened');
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.delete(id)) host.logger.info({ conversationId: id }, 'MCP session closed');
    };
    // The session id is only known once initialize is handled; the server learns it lazily.
    let conversationId: string | undefined;
    const mcp = createMcpServer(host, {
      get conversationId() {
        conversationId ??= transport.sessionId;
        if (conversationId === undefined) throw new Error('session not initialized');
        return conversationId;
      },
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  const boundPort = () => (server.address() as AddressInfo | null)?.port ?? options.port;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${displayHost}:${boundPort()}${options.path}`,
    server,
    sessionCount: () => sessions.size,
    closeIdleSessions,
    setReady(value) {
      ready = value;
    },
    async close() {
      ready = false;
      metrics.close();
      clearInterval(idleTimer);
      await Promise.all([...sessions.values()].map((session) => session.close().catch(() => undefined)));
      sessions.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** On loopback, refuse requests whose Host header is not this server (DNS rebinding). */
function dnsRebindingProtection(host: string, port: number): { enableDnsRebindingProtection?: boolean; allowedHosts?: string[] } {
  if (!loopbackHosts.has(host)) return {};
  return { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] };
}

const tooLarge = Symbol('too large');
const notJson = Symbol('not json');

async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return tooLarge;
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return notJson;
  }
}

function jsonRpcError(message: string, code = -32000): object {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
