import type { IncomingHttpHeaders } from 'node:http';

/** What a download's validators are: a strong ETag (the content's SHA-256) and its modification time. */
export interface Validators {
  etag: string;
  lastModified: Date;
}

/** A strong entity tag from a hex SHA-256. */
export function etagOf(sha256: string): string {
  return `"${sha256}"`;
}

/**
 * Whether the client's copy is current (answer 304), by RFC 9110 § 13.2.2:
 * If-None-Match (weak comparison) when present, else If-Modified-Since.
 */
export function isNotModified(headers: IncomingHttpHeaders, validators: Validators): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const tags = ifNoneMatch.split(',').map((tag) => tag.trim());
    return tags.includes('*') || tags.some((tag) => tag.replace(/^W\//, '') === validators.etag);
  }
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const sinceMs = Date.parse(since);
  return Number.isFinite(sinceMs) && Math.floor(validators.lastModified.getTime() / 1000) * 1000 <= sinceMs;
}

/** Whether a Range may be honoured: no If-Range, or one naming this very version (strong comparison, or the exact date). */
export function rangeApplies(headers: IncomingHttpHeaders, validators: Validators): boolean {
  const ifRange = headers['if-range'];
  const value = (Array.isArray(ifRange) ? ifRange[0] : ifRange)?.trim();
  if (value === undefined) return true;
  if (value.startsWith('"') || value.startsWith('W/')) return value === validators.etag;
  const date = Date.parse(value);
  return Number.isFinite(date) && date === Math.floor(validators.lastModified.getTime() / 1000) * 1000;
}
