/** The `aud` of every download link: a token signed for anything else is not a link. */
const audience = 'spillway-download';

/** What a signed link is bound to. */
export interface LinkClaims {
  principal: string;
  conversationId: string;
  /** Relative to the conversation folder, under outputs/. */
  path: string;
  /** SHA-256 (hex) of the file's content when the link was made. */
  sha256: string;
}

export interface SignOptions {
  key: Uint8Array;
  ttlSeconds: number;
  now: Date;
}

export type LinkCheck = { ok: true; claims: LinkClaims; expiresAt: Date } | { ok: false; reason: 'expired' | 'invalid' };

/**
 * A compact JWS (HS256, a JWT) binding principal, conversation, file path and
 * digest, valid until now + ttlSeconds.
 *
 * @example
 * const claims = { principal: 'alice', conversationId: 'c1', path: 'outputs/a.csv', sha256 };
 * const { token } = await signDownloadLink(claims, { key, ttlSeconds: 3600, now: new Date() });
 */
export async function signDownloadLink(claims: LinkClaims, options: SignOptions): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(options.now.getTime() / 1000);
  const expiresAt = issuedAt + options.ttlSeconds;
  const { SignJWT } = await import('jose'); // on first use: a host that makes no links never loads it
  const token = await new SignJWT({ cnv: claims.conversationId, pth: claims.path, dig: claims.sha256 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.principal)
    .setAudience(audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(options.key);
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

/** Checks a link's signature (HS256 only), audience and expiry at `now`; any fault but expiry is "invalid". */
export async function verifyDownloadLink(token: string, options: { key: Uint8Array; now: Date }): Promise<LinkCheck> {
  const { errors, jwtVerify } = await import('jose');
  try {
    const { payload } = await jwtVerify(token, options.key, { algorithms: ['HS256'], audience, currentDate: options.now, requiredClaims: ['sub', 'exp'] });
    const { sub, cnv, pth, dig, exp } = payload;
    if (typeof sub !== 'string' || typeof cnv !== 'string' || typeof pth !== 'string' || typeof dig !== 'string' || typeof exp !== 'number') {
      return { ok: false, reason: 'invalid' };
    }
    return { ok: true, claims: { principal: sub, conversationId: cnv, path: pth, sha256: dig }, expiresAt: new Date(exp * 1000) };
  } catch (error) {
    return { ok: false, reason: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}
