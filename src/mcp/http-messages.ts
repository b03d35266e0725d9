import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRetryable, SpillwayError } from '../errors.js';
import { jsonDepthScan } from './json-depth.js';

export interface BodyLimits {
  /** Largest body accepted, in bytes (server.maxBodyBytes). */
  maxBytes: number;
  /** Deepest nesting of arrays and objects accepted (server.maxJsonDepth). */
  maxDepth: number;
}

/** A request body: its JSON value (undefined when empty), or why it is refused, with the HTTP status and JSON-RPC code to answer. */
export type BodyRead = { ok: true; value: unknown } | { ok: false; status: 400 | 413; rpcCode: number; error: SpillwayError };

/**
 * Reads and parses a JSON request body within its limits. Size and nesting
 * are checked on every chunk as it arrives, before anything is parsed, so a
 * body that breaks either is refused after its first bytes over the limit;
 * the rest is read and dropped (answering before the client has finished
 * sending, then closing, would make some clients lose the answer), bounded
 * by the server's request timeout. Rejects when the client goes away.
 */
export function readJsonBody(request: IncomingMessage, limits: BodyLimits): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const depth = jsonDepthScan(limits.maxDepth);
    let size = 0;
    const finish = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', reject);
      request.off('close', onClose);
    };
    const refuse = (refusal: BodyRead) => {
      finish();
      request.on('error', () => undefined);
      request.resume();
      resolve(refusal);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) refuse({ ok: false, status: 413, rpcCode: -32600, error: tooLarge(limits.maxBytes) });
      else if (!depth.feed(chunk)) refuse({ ok: false, status: 400, rpcCode: -32600, error: tooDeep(limits.maxDepth) });
      else chunks.push(chunk);
    };
    const onEnd = () => {
      finish();
      resolve(parse(chunks, size));
    };
    const onClose = () => {
      finish();
      reject(new Error('The client closed the connection before the request body ended.'));
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
    request.once('close', onClose);
  });
}

function parse(chunks: Buffer[], size: number): BodyRead {
  if (size === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks, size).toString('utf8')) as unknown };
  } catch {
    return {
      ok: false,
      status: 400,
      rpcCode: -32700,
      error: new SpillwayError('INVALID_JSON', 'Parse error: the request body is not JSON.', { source: 'request body' }),
    };
  }
}

function tooLarge(maxBytes: number): SpillwayError {
  return new SpillwayError(
    'REQUEST_TOO_LARGE',
    `The request body is over ${maxBytes} bytes, the cap (server.maxBodyBytes); send less, or pass large data as sandbox files (write_file, then call_with_args_file).`,
    { limit: 'server.maxBodyBytes', value: maxBytes },
  );
}

function tooDeep(maxDepth: number): SpillwayError {
  return new SpillwayError(
    'REQUEST_TOO_DEEP',
    `The request body nests arrays and objects more than ${maxDepth} levels deep, the cap (server.maxJsonDepth); send flatter JSON.`,
    { limit: 'server.maxJsonDepth', value: maxDepth },
  );
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
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}
