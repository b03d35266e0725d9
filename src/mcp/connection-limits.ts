import type { Server as HttpServer } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';

export interface ConnectionCaps {
  /** Open connections at most (server.maxConnections). */
  maxConnections: number;
  /** Open connections from one client address at most (server.maxConnectionsPerAddress). */
  maxConnectionsPerAddress: number;
}

export interface ConnectionLimits {
  /** CONNECTION_LIMIT for a request that came on a connection accepted over a cap (answer it 503 and close), else undefined. */
  refusalOf(socket: Socket): SpillwayError | undefined;
  /** Connections open and counted. */
  open(): number;
}

/** Refused connections are logged at most this often (with how many there were), so a flood cannot flood the log. */
const refusalLogEveryMs = 10_000;

/**
 * Counts the server's connections, in all and per client address, as they
 * are accepted. A connection over a cap is not counted; the one request it
 * gets to send is answered 503 with Retry-After and the connection closed
 * (an answer the client can read, rather than a reset). A connection that
 * sends nothing is closed by the server's headers timeout. Past twice the
 * cap Node itself drops new connections at accept, which is logged too.
 */
export function limitConnections(server: HttpServer, caps: ConnectionCaps, logger: Logger): ConnectionLimits {
  const perAddress = new Map<string, number>();
  const refused = new WeakMap<Socket, SpillwayError>();
  let open = 0;
  const log = throttledWarn(logger);

  server.prependListener('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress);
    const mine = perAddress.get(address) ?? 0;
    const refusal = open >= caps.maxConnections ? serverFull(open, caps) : mine >= caps.maxConnectionsPerAddress ? addressFull(address, mine, caps) : undefined;
    if (refusal !== undefined) {
      refused.set(socket, refusal);
      log({ ...refusal.details }, 'HTTP connection refused: over a cap');
      return;
    }
    open += 1;
    perAddress.set(address, mine + 1);
    socket.once('close', () => {
      open -= 1;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
  // Refused connections live until their one answer (or the headers timeout); this bounds how many can wait for it.
  server.maxConnections = caps.maxConnections * 2;
  server.on('drop', (data?: { remoteAddress?: string }) => {
    log(
      { scope: 'accept', remoteAddress: data?.remoteAddress, limit: server.maxConnections },
      'HTTP connection dropped at accept: far over server.maxConnections',
    );
  });

  return { refusalOf: (socket) => refused.get(socket), open: () => open };
}

function serverFull(open: number, caps: ConnectionCaps): SpillwayError {
  return new SpillwayError(
    'CONNECTION_LIMIT',
    `This server has ${open} HTTP connections open, its cap (server.maxConnections = ${caps.maxConnections}); retry later.`,
    { scope: 'server', open, limit: caps.maxConnections },
  );
}

function addressFull(address: string, open: number, caps: ConnectionCaps): SpillwayError {
  return new SpillwayError(
    'CONNECTION_LIMIT',
    `Your address ${address} has ${open} HTTP connections open to this server, its cap (server.maxConnectionsPerAddress = ${caps.maxConnectionsPerAddress}); close some or retry later.`,
    { scope: 'address', address, open, limit: caps.maxConnectionsPerAddress },
  );
}

function throttledWarn(logger: Logger): (details: Record<string, unknown>, message: string) => void {
  let lastAt = -Infinity;
  let unlogged = 0;
  return (details, message) => {
    unlogged += 1;
    const now = Date.now();
    if (now - lastAt < refusalLogEveryMs) return;
    logger.warn({ ...details, refusedSinceLastLine: unlogged }, message);
    lastAt = now;
    unlogged = 0;
  };
}

/**
 * The client address a connection counts against: an IPv4 address (also
 * IPv4-mapped IPv6), or the /64 prefix of an IPv6 address, since one client
 * usually holds a whole /64 and could otherwise pick a fresh address per
 * connection.
 */
export function addressKey(remote: string | undefined): string {
  if (remote === undefined) return 'unknown';
  const bare = remote.split('%')[0] ?? remote;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null) return mapped[1] ?? bare;
  if (isIP(bare) !== 6) return bare;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const withoutIpv4 = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) => {
    const [w, x, y, z] = [a, b, c, d].map(Number) as [number, number, number, number];
    return `${((w << 8) | x).toString(16)}:${((y << 8) | z).toString(16)}`;
  });
  const [head = '', tail] = withoutIpv4.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => Number.parseInt(group, 16).toString(16));
}
