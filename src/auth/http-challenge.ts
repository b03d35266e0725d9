import type { Refused } from './auth-result.js';

/** A value safe inside an RFC 7230 quoted-string: double quotes become single ones; no backslashes or control characters. */
function quoted(value: string): string {
  return `"${value.replace(/"/g, "'").replace(/[\\\u0000-\u001f\u007f]/g, ' ')}"`;
}

/**
 * The WWW-Authenticate header of a refusal (RFC 6750 § 3): the scheme, the
 * parameters the mode adds (resource_metadata for OAuth, RFC 9728 § 5.1), and
 * the error with its description when a token was sent.
 */
export function bearerChallenge(refused: Refused, parameters: Record<string, string>): string {
  const all: Record<string, string> = { ...parameters };
  if (refused.error !== undefined) {
    all.error = refused.error;
    all.error_description = refused.description;
  }
  const text = Object.entries(all)
    .map(([name, value]) => `${name}=${quoted(value)}`)
    .join(', ');
  return text === '' ? 'Bearer' : `Bearer ${text}`;
}
