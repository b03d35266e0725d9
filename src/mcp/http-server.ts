import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Refused } from '../auth/auth-result.js';
import { createAuthenticator } from '../auth/create-authenticator.js';
import type { ServerAuthConfig } from '../config/schema.js';
import { downloadRoute } from '../downloads/download-route.js';
import { downloadSettings } from '../downloads/download-settings.js';
import type { Host } from '../host/host.js';
import { createHostMetrics } from '../metrics/host-metrics.js';
import { checkReplicaHealth } from '../metrics/replica-health.js';
import { limitConnections } from './connection-limits.js';
import { connectionTimeouts, frontLimits, type FrontLimits } from './front-limits.js';
import { dnsRebindingProtection, listen } from './listen.js';
import { jsonRpcError, readJsonBody, sendJson } from './http-messages.js';
import { createMcpServer } from './mcp-server.js';
import { TaskBoard } from './task-board.js';
import { sessionAdmission } from './session-admission.js';
import { defaultEventStoreLimits, EventBudget, SessionEventStore, type EventStoreLimits } from './session-event-store.js';

/** Where the front listens and with what; every limit of FrontLimits not given here is the host's configuration (server.*). */
export interface HttpFrontOptions extends Partial<FrontLimits> {
  host: string;
  port: number;
  /** URL path of the MCP endpoint, e.g. "/mcp". */
  path: string;
  /** A session with no request (and no open stream) for this long is closed; its files stay (server.sessionIdleMs). */
  sessionIdleMs?: number;
  /** Clock for the idle check, in epoch milliseconds; tests pass their own. Default Date.now. */
  now?: () => number;
  /** Whether /readyz says ready as soon as the front listens. Default true; pass false and call setReady when startup goes on after listening. */
  ready?: boolean;
  /** Who may call, as `server.auth`; default `{mode: "none"}`, which only a loopback address allows. */
  auth?: ServerAuthConfig;
  /** Where bearer `secretEnv` secrets are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Clock for OAuth token expiry (tests); default the system clock. */
  authNow?: () => Date;
  /** Open sessions at most (server.maxSessions). */
  maxSessions?: number;
  /** Open sessions of one principal at most (server.maxSessionsPerPrincipal). */
  maxSessionsPerPrincipal?: number;
  /** The SSE `retry` (ms) a client waits before reconnecting a dropped stream with Last-Event-ID; default 1000. */
  sseRetryMs?: number;
  /** What the in-memory event stores keep for resuming streams; defaults in session-event-store.ts (64 MiB in all). */
  eventStoreLimits?: Partial<EventStoreLimits>;
}

export interface HttpFront {
  url: string;
  server: HttpServer;
  /** Open MCP sessions. */
  sessionCount(): number;
  /** Closes the sessions idle for sessionIdleMs now (a timer also does this periodically); returns how many. */
  closeIdleSessions(): number;
  /** What /readyz answers (a load balancer sends traffic only while ready); close() sets it false first. */
  setReady(ready: boolean): void;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** Who opened it: only that principal may use it. */
  principal: string;
  close(): Promise<void>;
  lastSeen: number;
  /** Requests (including open SSE streams) still being answered. */
  active: number;
}

/**
 * Serves the host as MCP over Streamable HTTP. Each request works in the
 * conversation it names (`_meta["spillway/conversation"]`, the
 * Mcp-Conversation-Id header) or else the session's own (named after the
 * session id), under its principal's folder (see mcp/request-scope.ts). Every
 * request on the MCP endpoint is authenticated (server.auth) before any
 * session is looked up or made; a session belongs to the principal that
 * opened it. Also serves GET /healthz (can this replica serve: 503 when a
 * check fails) and /readyz (should it get traffic: 503 while starting or
 * shutting down), both open for load balancers; /metrics (Prometheus), which
 * needs a token whenever auth is configured; GET /files/<conversation>/outputs/<name>,
 * the caller's own outputs (src/downloads/: same auth, or a signed link); and,
 * in OAuth mode, the RFC 9728 protected-resource metadata.
 *
 * Bodies are held to server.maxBodyBytes and server.maxJsonDepth (checked
 * as they arrive, before parsing); connections to server.maxConnections in
 * all and server.maxConnectionsPerAddress per client address, and to Node's
 * header, request and idle timeouts, none of which cuts an open SSE answer.
 * Every limit not given in the options is the host's configuration (server.*).
 *
 * Throws AUTH_CONFIG_INVALID (before listening) for an unusable server.auth,
 * DOWNLOAD_CONFIG_INVALID for server.publicUrl without a usable signing key,
 * CONFIG_INVALID for a headers timeout longer than the request timeout,
 * SERVER_LISTEN_FAILED when the address cannot be bound.
 */
export async function startHttpFront(host: Host, options: HttpFrontOptions): Promise<HttpFront> {
  const sessions = new Map<string, Session>();
  const limits = frontLimits(options, host.config.server);
  const bodyLimits = { maxBytes: limits.maxBodyBytes, maxDepth: limits.maxJsonDepth };
  const timeouts = connectionTimeouts(limits);
  const configured = host.config.server;
  const admission = sessionAdmission(
    {
      maxSessions: options.maxSessions ?? configured.maxSessions,
      maxSessionsPerPrincipal: options.maxSessionsPerPrincipal ?? configured.maxSessionsPerPrincipal,
    },
    () => sessions.values(),
  );
  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const listenUrl = () => `http://${displayHost}:${boundPort()}${options.path}`;
  const authenticator = await createAuthenticator(options.auth ?? { mode: 'none' }, {
    bindHost: options.host,
    env: options.env ?? process.env,
    listenUrl,
    ...(options.authNow === undefined ? {} : { now: options.authNow }),
  });
  // GET /files/<conversation>/outputs/<name>: same authentication; a publicUrl without a signing key refuses to start.
  downloadSettings(host.config, options.env ?? process.env);
  const downloads = downloadRoute(host, {
    authenticator,
    env: options.env ?? process.env,
    allowedHosts: () => dnsRebindingProtection(options.host, boundPort()).allowedHosts,
    ...(options.authNow === undefined ? {} : { now: options.authNow }),
  });
  // Resumable streams: SSE event ids, `retry`, replay after Last-Event-ID, kept in memory per session within one budget.
  const eventBudget = new EventBudget({ ...defaultEventStoreLimits, ...options.eventStoreLimits });
  const sessionIdleMs = options.sessionIdleMs ?? configured.sessionIdleMs;
  const clock = options.now ?? Date.now;
  // One board for the front's sessions: tasks.maxPerPrincipal counts over all of a principal's sessions.
  const taskBoard = new TaskBoard(() => host.config.tasks, clock);
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

  const boundPort = () => (server.address() as AddressInfo | null)?.port ?? options.port;
  const server = createServer(timeouts, (request, response) => {
    const overCap = connections.refusalOf(request.socket);
    if (overCap !== undefined) {
      sendJson(response, 503, jsonRpcError(overCap.message, -32000, overCap), { 'retry-after': '5', connection: 'close' });
      return;
    }
    handle(request, response).catch((error: unknown) => {
      if (request.socket.destroyed) {
        // The client went away or its request timed out (Node answered that 408); nothing is left to answer.
        host.logger.info({ err: error }, 'HTTP request ended before it was answered');
        return;
      }
      host.logger.error({ err: error }, 'HTTP request failed');
      if (!response.headersSent) sendJson(response, 500, jsonRpcError('Internal error'));
      else response.end();
    });
  });
  // Never cut a connection for being quiet while its answer is open: an SSE stream may rest for hours.
  server.timeout = 0;
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  const connections = limitConnections(
    server,
    { maxConnections: limits.maxConnections, maxConnectionsPerAddress: limits.maxConnectionsPerAddress },
    host.logger,
  );

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
    if (request.method === 'GET' && authenticator.resourceMetadata !== undefined && authenticator.metadataPaths?.().paths.includes(url.pathname) === true) {
      sendJson(response, 200, authenticator.resourceMetadata(), { 'cache-control': 'max-age=3600' });
      return;
    }
    if (url.pathname === '/metrics' && request.method === 'GET') {
      // Open with auth none (then the front is on loopback); any valid credential otherwise.
      const caller = await authenticator.authenticate(request.headers.authorization);
      if (!caller.ok) {
        refuse(response, caller);
        return;
      }
      const text = await metrics.render();
      response.writeHead(200, { 'content-type': metrics.contentType });
      response.end(text);
      return;
    }
    if (downloads.handles(url.pathname)) {
      await downloads.handle(request, response, url);
      return;
    }
    if (url.pathname !== options.path) {
      sendJson(response, 404, { error: `Not found. The MCP endpoint is ${options.path}.` });
      return;
    }
    const caller = await authenticator.authenticate(request.headers.authorization);
    if (!caller.ok) {
      refuse(response, caller);
      return;
    }
    // The SDK transport hands this to MCP handlers as extra.authInfo.
    if (caller.info !== undefined) (request as IncomingMessage & { auth?: AuthInfo }).auth = caller.info;
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const read = request.method === 'POST' ? await readJsonBody(request, bodyLimits) : { ok: true as const, value: undefined };
    if (!read.ok) {
      host.logger.warn({ principal: caller.principal, code: read.error.code, ...read.error.details }, 'HTTP request body refused');
      sendJson(response, read.status, jsonRpcError(read.error.message, read.rpcCode, read.error));
      return;
    }
    const body = read.value;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another principal's session answers as if it did not exist: a session id is not a credential.
      if (session === undefined || session.principal !== caller.principal) {
        if (session !== undefined) host.logger.warn({ principal: caller.principal }, 'MCP session used by a principal that did not open it; refused');
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
    // Refusals the transport would make anyway, made before anything exists that must be undone.
    if (!(request.headers['content-type'] ?? '').includes('application/json')) {
      sendJson(response, 415, jsonRpcError('Unsupported Media Type: Content-Type must be application/json'));
      return;
    }
    const accept = request.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      sendJson(response, 406, jsonRpcError('Not Acceptable: Accept must list application/json and text/event-stream'));
      return;
    }
    const overCap = admission.check(caller.principal);
    if (overCap !== undefined) {
      host.logger.warn({ principal: caller.principal, ...overCap.details }, 'MCP session refused: over a cap');
      sendJson(response, overCap.details?.scope === 'principal' ? 429 : 503, jsonRpcError(overCap.message, -32000, overCap), { 'retry-after': '60' });
      return;
    }
    await admission.opening(caller.principal, () => openSession(request, response, body, caller.principal));
  }

  async function openSession(request: IncomingMessage, response: ServerResponse, body: unknown, principal: string): Promise<void> {
    let opened = false;
    const eventStore = new SessionEventStore(eventBudget);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore,
      retryInterval: options.sseRetryMs ?? 1000,
      ...dnsRebindingProtection(options.host, boundPort()),
      onsessioninitialized: (id) => {
        opened = true;
        sessions.set(id, { transport, principal, close: () => mcp.close(), lastSeen: clock(), active: 0 });
        host.logger.info({ conversationId: id, principal }, 'MCP session opened');
      },
    });
    transport.onclose = () => {
      eventStore.clear();
      const id = transport.sessionId;
      if (id !== undefined && sessions.delete(id)) host.logger.info({ conversationId: id }, 'MCP session closed');
    };
    // The session id is only known once initialize is handled; the server learns it lazily.
    let conversationId: string | undefined;
    const mcp = createMcpServer(host, {
      tasks: taskBoard,
      get conversationId() {
        conversationId ??= transport.sessionId;
        if (conversationId === undefined) throw new Error('session not initialized');
        return conversationId;
      },
    });
    await mcp.connect(transport);
    try {
      await transport.handleRequest(request, response, body);
    } finally {
      // A refused initialize (Host header, protocol version, ...) leaves nothing behind: no server, no listener.
      if (!opened) {
        await mcp.close().catch(() => undefined);
        eventStore.clear();
      }
    }
  }

  function refuse(response: ServerResponse, refused: Refused): void {
    const status = refused.status;
    const headers: Record<string, string> = status === 503 ? { 'retry-after': '5' } : { 'www-authenticate': authenticator.challenge(refused) };
    const code = status === 403 ? -32003 : -32001;
    sendJson(response, status, jsonRpcError(status === 503 ? refused.description : `Unauthorized: ${refused.description}`, code), headers);
  }

  await listen(server, options.host, options.port).catch((error: unknown) => {
    clearInterval(idleTimer);
    metrics.close();
    throw error;
  });
  return {
    url: listenUrl(),
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
      // Closing every connection at once: waiting for them first would wait forever on a client that never finishes its request.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
