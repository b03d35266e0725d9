import type { ServerAuthConfig } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { Authenticator } from './auth-result.js';
import { bearerAuthenticator, loadBearerTokens } from './bearer-verifier.js';
import { isLoopbackHost } from './loopback.js';
import { oauthAuthenticator } from './oauth-verifier.js';

export interface CreateAuthenticatorOptions {
  /** The address the front listens on. */
  bindHost: string;
  /** Where `secretEnv` tokens are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The MCP endpoint's URL as the front listens (OAuth's default resource); called only once it listens. */
  listenUrl: () => string;
  /** Clock for token expiry (tests). */
  now?: () => Date;
}

/** With auth none every request is the principal `local`, as over stdio. */
export const localPrincipal = 'local';

function noneAuthenticator(): Authenticator {
  return {
    mode: 'none',
    authenticate: () => Promise.resolve({ ok: true, principal: localPrincipal }),
    challenge: () => 'Bearer',
  };
}

/**
 * Checks `server.auth` against the address it will serve and builds the
 * authenticator; every problem is AUTH_CONFIG_INVALID with a message that
 * names the key and says what to set (never a secret's value).
 */
export async function createAuthenticator(config: ServerAuthConfig, options: CreateAuthenticatorOptions): Promise<Authenticator> {
  switch (config.mode) {
    case 'none':
      if (!isLoopbackHost(options.bindHost)) {
        throw new SpillwayError(
          'AUTH_CONFIG_INVALID',
          `server.host is ${options.bindHost}, which other machines can reach, and server.auth.mode is "none". Set server.auth to bearer tokens or OAuth (see docs/auth.md), or listen on 127.0.0.1.`,
          { key: 'server.auth', host: options.bindHost },
        );
      }
      return noneAuthenticator();
    case 'bearer':
      return bearerAuthenticator(loadBearerTokens(config.tokens, options.env ?? process.env));
    case 'oauth': {
      const { resource } = config;
      return oauthAuthenticator({
        config,
        resource: resource === undefined ? options.listenUrl : () => resource,
        ...(options.now === undefined ? {} : { now: options.now }),
      });
    }
  }
}
