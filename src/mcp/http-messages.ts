import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRetryable, type SpillwayError } from '../errors.js';

export const tooLarge = Symbol('too large');
export const notJson = Symbol('not json');

/** A request body parsed as JSON, `tooLarge` past maxBytes (reading stops there), `notJson`, or undefined when empty. */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return tooLarge;
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return notJson;
  }
}

/**
 * A JSON-RPC error answer. With a SpillwayError, `error.data` carries
 * `{code, details, retryable}` (the shape of `_meta["spillway/error"]` on tool
 * results), so a program can branch on the code.
 */
export function jsonRpcError(message: string, code = -32000, cause?: SpillwayError): object {
  const data = cause === undefined ? {} : { data: { code: cause.code, details: cause.details ?? {}, retryable: isRetryable(cause.code) } };
  return { jsonrpc: '2.0', error: { code, message, ...data }, id: null };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
