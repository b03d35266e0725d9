/**
 * `Content-Disposition: attachment` for a file name (RFC 6266): an ASCII
 * `filename` for old clients (other characters, quotes and backslashes
 * become "_") and `filename*=UTF-8''…` (RFC 8187) with the real name.
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(filename)}`;
}

/** Percent-encodes everything but RFC 8187's attr-char (ALPHA / DIGIT / "!#$&+-.^_`|~"). */
export function encodeRfc8187(value: string): string {
  return Array.from(new TextEncoder().encode(value), (byte) => {
    const char = String.fromCharCode(byte);
    return /[A-Za-z0-9!#$&+\-.^_`|~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}
