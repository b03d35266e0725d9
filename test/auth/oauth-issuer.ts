import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export const audience = 'https://spillway.example/mcp';

export interface Issuer {
  url: string;
  jwksUrl: string;
  sign(claims?: Record<string, unknown>, options?: { audience?: string; expiresAt?: number; key?: CryptoKey }): Promise<string>;
}

/** A tiny authorization server on 127.0.0.1: its JWKS, and (when `metadata`) RFC 8414 metadata pointing at it. */
export async function startIssuer(t: TestContext, metadata: boolean): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  let base = '';
  const server: Server = createServer((request, response) => {
    if (request.url === '/jwks.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    } else if (metadata && request.url === '/.well-known/oauth-authorization-server') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks.json` }));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    jwksUrl: `${base}/jwks.json`,
    async sign(claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ sub: 'alice', scope: 'mcp:tools', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(base)
        .setAudience(options.audience ?? audience)
        .setIssuedAt(now - 60)
        .setExpirationTime(options.expiresAt ?? now + 300)
        .sign(options.key ?? privateKey);
    },
  };
}
