import type { Server as HttpServer } from 'node:http';
import { isLoopbackHost } from '../auth/loopback.js';
import { SpillwayError } from '../errors.js';

/** Listens, or SERVER_LISTEN_FAILED saying why (port in use, address not here, no permission). */
export function listen(server: HttpServer, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      const reasons: Record<string, string> = {
        EADDRINUSE: 'the port is in use by another process; stop it or choose another port (--port or server.port)',
        EADDRNOTAVAIL: 'the address is not one of this machine (server.host)',
        EACCES: 'no permission to listen there (ports below 1024 need privileges)',
        ENOTFOUND: 'the host name does not resolve (server.host)',
      };
      const reason = reasons[error.code ?? ''] ?? error.message;
      reject(new SpillwayError('SERVER_LISTEN_FAILED', `Cannot listen on ${host}:${port}: ${reason}.`, { host, port, errno: error.code }, { cause: error }));
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/**
 * On a loopback address (all of 127.0.0.0/8, ::1, localhost: the same rule that
 * allows auth "none"), refuse requests whose Host header is not this server, so
 * a web page cannot reach it through DNS rebinding.
 */
export function dnsRebindingProtection(host: string, port: number): { enableDnsRebindingProtection?: boolean; allowedHosts?: string[] } {
  if (!isLoopbackHost(host)) return {};
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const bound = bare.includes(':') ? `[${bare}]:${port}` : `${bare.toLowerCase()}:${port}`;
  return { enableDnsRebindingProtection: true, allowedHosts: [...new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, bound])] };
}
