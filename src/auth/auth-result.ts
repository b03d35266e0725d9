import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/** Who a request comes from, once its credential checked out. */
export interface Authenticated {
  ok: true;
  principal: string;
  /** What the SDK transport hands MCP handlers as `extra.authInfo`; absent with auth none (the principal is `local`). */
  info?: AuthInfo;
}

/** Why a request is refused, in the terms of RFC 6750 § 3. */
export interface Refused {
  ok: false;
  status: 401 | 403 | 503;
  /** RFC 6750 error code; absent when no credential was sent. */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description: string;
}

export type AuthResult = Authenticated | Refused;

/** Checks one request's credential (the Authorization header). */
export interface Authenticator {
  mode: 'none' | 'bearer' | 'oauth';
  authenticate(authorization: string | undefined): Promise<AuthResult>;
  /** The WWW-Authenticate value for a refusal. */
  challenge(refused: Refused): string;
  /** RFC 9728 protected-resource metadata (oauth mode only). */
  resourceMetadata?(): Record<string, unknown>;
  /** Where that metadata is served: its URL path, and the URL clients are told. */
  metadataPaths?(): { paths: string[]; url: string };
}

/** The token of an `Authorization: Bearer <token>` header, or why there is none. */
export function bearerTokenOf(authorization: string | undefined): { token: string } | { missing: true } | { malformed: true } {
  if (authorization === undefined || authorization.trim() === '') return { missing: true };
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return match === null ? { malformed: true } : { token: match[1] ?? '' };
}
