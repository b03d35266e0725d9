import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { ServerAuthConfig } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import { bearerTokenOf, type Authenticator, type AuthResult } from './auth-result.js';
import { bearerChallenge } from './http-challenge.js';
import { checkPrincipalName } from './principal-name.js';

export type OAuthConfig = Extract<ServerAuthConfig, { mode: 'oauth' }>;

export interface OAuthAuthenticatorOptions {
  config: OAuthConfig;
  /** The MCP endpoint's public URL (config `resource`, else the URL the front listens on, known once it listens). */
  resource: () => string;
  /** Clock for expiry checks (tests); default the system clock. */
  now?: () => Date;
}

/** Where the protected-resource metadata lives for a resource URL (RFC 9728 § 3.1: inserted before the path). */
function metadataUrl(resource: URL): { path: string; url: string } {
  const suffix = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  const path = `/.well-known/oauth-protected-resource${suffix}`;
  return { path, url: new URL(path, resource.origin).href };
}

/** The scopes a token holds: the `scope` claim (space-separated, RFC 9068) or an `scp` array. */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope): scope is string => typeof scope === 'string');
  return [];
}

/**
 * OAuth 2.1 resource server per the MCP authorization spec: a JWT access token
 * is verified against the issuer's JWKS (signature, `iss`, `aud`, `exp`/`nbf`),
 * must hold the required scopes, and names its principal in `sub` (or the
 * configured claim). Refusals carry `resource_metadata` so a client can find
 * the authorization server.
 */
export async function oauthAuthenticator(options: OAuthAuthenticatorOptions): Promise<Authenticator> {
  const { config } = options;
  const jose = await import('jose');
  const jwksUrl = config.jwksUrl ?? (await discoverJwksUrl(config.issuer));
  const keys: JWTVerifyGetKey = jose.createRemoteJWKSet(new URL(jwksUrl));
  const resourceUrl = () => new URL(options.resource());
  const claim = config.principalClaim ?? 'sub';
  const required = config.requiredScopes ?? [];
  const challengeParameters = (): Record<string, string> => ({
    resource_metadata: metadataUrl(resourceUrl()).url,
    ...(required.length > 0 ? { scope: required.join(' ') } : {}),
  });

  async function authenticate(authorization: string | undefined): Promise<AuthResult> {
    const presented = bearerTokenOf(authorization);
    if ('missing' in presented) return { ok: false, status: 401, description: 'This server needs an OAuth access token (Authorization: Bearer).' };
    if ('malformed' in presented) return { ok: false, status: 401, error: 'invalid_request', description: 'The Authorization header is not "Bearer <token>".' };
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(presented.token, keys, {
        issuer: config.issuer,
        audience: config.audience,
        requiredClaims: ['exp'],
        ...(options.now === undefined ? {} : { currentDate: options.now() }),
      }));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ERR_JWKS_TIMEOUT' || !(error instanceof jose.errors.JOSEError)) {
        return { ok: false, status: 503, description: "The issuer's signing keys cannot be fetched now; try again." };
      }
      return { ok: false, status: 401, error: 'invalid_token', description: `The access token is not accepted: ${(error as Error).message}` };
    }
    let principal: string;
    try {
      principal = checkPrincipalName(payload[claim], `The token's "${claim}" claim`);
    } catch (error) {
      return { ok: false, status: 401, error: 'invalid_token', description: (error as Error).message };
    }
    const scopes = scopesOf(payload);
    const missing = required.filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) {
      return { ok: false, status: 403, error: 'insufficient_scope', description: `The token lacks the scope(s) ${missing.join(', ')}.` };
    }
    return {
      ok: true,
      principal,
      info: {
        token: presented.token,
        clientId: principal,
        scopes,
        ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
        resource: resourceUrl(),
        extra: { principal, ...(typeof payload.client_id === 'string' ? { oauthClientId: payload.client_id } : {}) },
      },
    };
  }

  return {
    mode: 'oauth',
    authenticate,
    challenge: (refused) => bearerChallenge(refused, challengeParameters()),
    resourceMetadata: () => ({
      resource: resourceUrl().href,
      authorization_servers: [config.issuer],
      bearer_methods_supported: ['header'],
      ...(required.length > 0 ? { scopes_supported: required } : {}),
      resource_name: 'spillway',
    }),
    // The RFC 9728 URL is advertised; the bare one is served too for clients that look there first.
    metadataPaths: () => {
      const metadata = metadataUrl(resourceUrl());
      return { paths: [...new Set([metadata.path, '/.well-known/oauth-protected-resource'])], url: metadata.url };
    },
  };
}

/** jwks_uri from the issuer's metadata (RFC 8414, then OpenID Connect Discovery), or AUTH_CONFIG_INVALID. */
async function discoverJwksUrl(issuer: string): Promise<string> {
  const base = new URL(issuer);
  const issuerPath = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
  const candidates = [
    new URL(`/.well-known/oauth-authorization-server${issuerPath}`, base.origin),
    new URL(`${issuerPath}/.well-known/openid-configuration`, base.origin),
  ];
  for (const candidate of candidates) {
    try {
      const response = await fetch(candidate, { signal: AbortSignal.timeout(10_000), headers: { accept: 'application/json' } });
      if (!response.ok) continue;
      const body = (await response.json()) as { jwks_uri?: unknown };
      if (typeof body.jwks_uri === 'string' && /^https?:\/\//.test(body.jwks_uri)) return body.jwks_uri;
    } catch {
      // Try the next location; the error below names the key to set.
    }
  }
  throw new SpillwayError(
    'AUTH_CONFIG_INVALID',
    `server.auth.jwksUrl is not set and the issuer ${issuer} publishes no jwks_uri at ${candidates.map((url) => url.href).join(' or ')}; set server.auth.jwksUrl.`,
    { key: 'server.auth.jwksUrl', issuer },
  );
}
