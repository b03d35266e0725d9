import { createHash, timingSafeEqual } from 'node:crypto';
import type { BearerTokenConfig } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import { bearerTokenOf, type Authenticator, type AuthResult } from './auth-result.js';
import { bearerChallenge } from './http-challenge.js';
import { checkPrincipalName } from './principal-name.js';

interface StoredToken {
  principal: string;
  digest: Buffer;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The configured tokens as SHA-256 digests: a secret from the environment is
 * hashed at once and not kept. A variable that is unset or empty is a
 * configuration error naming the key (never the value).
 */
export function loadBearerTokens(tokens: readonly BearerTokenConfig[], env: NodeJS.ProcessEnv): StoredToken[] {
  return tokens.map((token, index) => {
    const key = `server.auth.tokens[${index}]`;
    const principal = configuredPrincipal(token.principal, `${key}.principal`);
    if ('sha256' in token) return { principal, digest: Buffer.from(token.sha256, 'hex') };
    const secret = env[token.secretEnv];
    if (secret === undefined || secret === '') {
      throw new SpillwayError(
        'AUTH_CONFIG_INVALID',
        `${key}.secretEnv names the environment variable ${token.secretEnv}, which is not set; set it to the token of principal "${principal}" (or give ${key}.sha256 instead).`,
        { key: `${key}.secretEnv`, variable: token.secretEnv },
      );
    }
    return { principal, digest: sha256(secret) };
  });
}

/** A token's principal, or AUTH_CONFIG_INVALID naming the key (a reserved name such as "local" passes the schema's pattern). */
function configuredPrincipal(name: string, key: string): string {
  try {
    return checkPrincipalName(name, key);
  } catch (error) {
    if (!SpillwayError.is(error)) throw error;
    throw new SpillwayError('AUTH_CONFIG_INVALID', error.message, { key, reason: error.details?.reason }, { cause: error });
  }
}

/**
 * Static bearer tokens, each mapped to a principal. The presented token is
 * hashed and compared with every stored digest in constant time (no early
 * exit), so neither the match nor its position shows in the timing.
 */
export function bearerAuthenticator(tokens: readonly StoredToken[]): Authenticator {
  const challenge = { realm: 'spillway' };
  return {
    mode: 'bearer',
    authenticate(authorization): Promise<AuthResult> {
      const presented = bearerTokenOf(authorization);
      if ('missing' in presented) return Promise.resolve({ ok: false, status: 401, description: 'This server needs an Authorization: Bearer token.' });
      if ('malformed' in presented) {
        return Promise.resolve({ ok: false, status: 401, error: 'invalid_request', description: 'The Authorization header is not "Bearer <token>".' });
      }
      const digest = sha256(presented.token);
      let principal: string | undefined;
      for (const token of tokens) {
        if (timingSafeEqual(digest, token.digest) && principal === undefined) principal = token.principal;
      }
      if (principal === undefined) return Promise.resolve({ ok: false, status: 401, error: 'invalid_token', description: 'The token is not accepted.' });
      return Promise.resolve({
        ok: true,
        principal,
        info: { token: presented.token, clientId: principal, scopes: [], extra: { principal } },
      });
    },
    challenge: (refused) => bearerChallenge(refused, challenge),
  };
}
