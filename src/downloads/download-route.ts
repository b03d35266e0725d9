import type { Stats } from 'node:fs';
import { lstat, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Authenticator, Refused } from '../auth/auth-result.js';
import { toSpillwayError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/logger.js';
import { isTextMimeType, mimeTypeFor } from '../outputs/attachments.js';
import { authorize } from '../policy/authorize.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import { parseRange } from './byte-range.js';
import { etagOf, isNotModified, rangeApplies, type Validators } from './conditional-request.js';
import { contentDisposition } from './content-disposition.js';
import { downloadPrefix, parseDownloadPath, type DownloadTarget } from './download-path.js';
import { downloadSettings } from './download-settings.js';
import { fileDigest } from './file-digest.js';
import { readOutputRecord, type OutputRecord } from './output-record.js';
import { verifyDownloadLink } from './signed-link.js';

export interface DownloadRouteOptions {
  /** The MCP endpoint's authenticator: a download without a signed link authenticates exactly as /mcp does. */
  authenticator: Authenticator;
  /** Where server.downloads.signingKeyEnv is read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The Host header values accepted (DNS-rebinding protection on loopback), read per request; undefined accepts any. */
  allowedHosts?: () => string[] | undefined;
  /** The clock signed links are checked by (tests); default the system clock. */
  now?: () => Date;
}

export interface DownloadRoute {
  /** Whether a URL path is the route's (everything under /files/). */
  handles(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void>;
}

/** The one answer for every file that is not the caller's to download: no answer tells a missing file from a forbidden one. */
const notFoundBody = JSON.stringify({ error: 'Not found.' });

/** Who asks, and (for a signed link) which content the link was made for. */
type Caller = { principal: string; linkSha256?: string };

/**
 * GET (and HEAD) /files/<conversation>/outputs/<name>: a principal's own
 * output, streamed from disk. The principal comes from the Authorization
 * header (as on /mcp) or from a signed link (`?sig=`), never from the path:
 * the path names a conversation of the caller's own. Another principal's
 * file, a missing one, a symlink, a path outside outputs/, a file no tool
 * call recorded (or changed since) and a file whose producing tool the
 * current policy denies all get the same 404. A link that is expired,
 * tampered with or made for another path gets 403; a link whose file changed
 * since it was made gets 410.
 */
export function downloadRoute(host: Host, options: DownloadRouteOptions): DownloadRoute {
  const now = options.now ?? (() => new Date());
  const logger = host.logger.child({ component: 'downloads' });

  async function callerOf(request: IncomingMessage, response: ServerResponse, url: URL, target: DownloadTarget | undefined): Promise<Caller | undefined> {
    const sig = url.searchParams.get('sig');
    if (sig === null) {
      const caller = await options.authenticator.authenticate(request.headers.authorization);
      if (caller.ok) return { principal: caller.principal };
      refuseCredential(response, caller);
      return undefined;
    }
    let key: Uint8Array | undefined;
    try {
      key = downloadSettings(host.config, options.env ?? process.env).key;
    } catch (error) {
      logger.warn({ err: error }, 'signed download refused: the download settings are unusable');
    }
    const check = key === undefined ? ({ ok: false, reason: 'invalid' } as const) : await verifyDownloadLink(sig, { key, now: now() });
    if (!check.ok) {
      logger.info({ reason: check.reason }, 'signed download link refused');
      refuseLink(response, check.reason === 'expired' ? 'This download link has expired; ask for a new one.' : 'This download link is not valid.');
      return undefined;
    }
    if (target === undefined || check.claims.conversationId !== target.conversationId || check.claims.path !== target.relative) {
      logger.info({ reason: 'other-path' }, 'signed download link refused');
      refuseLink(response, 'This download link is not valid.');
      return undefined;
    }
    return { principal: check.claims.principal, linkSha256: check.claims.sha256 };
  }

  function refuseCredential(response: ServerResponse, refused: Refused): void {
    const headers: Record<string, string> = refused.status === 503 ? { 'retry-after': '5' } : { 'www-authenticate': options.authenticator.challenge(refused) };
    sendJson(response, refused.status, { error: refused.status === 503 ? refused.description : `Unauthorized: ${refused.description}` }, headers);
  }

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendJson(response, 405, { error: 'Downloads answer GET and HEAD only.' }, { allow: 'GET, HEAD' });
      return;
    }
    const allowedHosts = options.allowedHosts?.();
    if (allowedHosts !== undefined && !allowedHosts.includes(request.headers.host ?? '')) {
      sendJson(response, 403, { error: `Invalid Host header: ${JSON.stringify(request.headers.host ?? '')}` });
      return;
    }
    const target = parseDownloadPath(url.pathname);
    const caller = await callerOf(request, response, url, target);
    if (caller === undefined) return;
    const log = logger.child({
      principal: caller.principal,
      ...(target === undefined ? {} : { conversationId: target.conversationId, path: target.relative }),
    });
    if (target === undefined) return notFound(response, log, 'not an outputs/ path');
    const file = await openOutput(host, caller.principal, target).catch((error: unknown) => toSpillwayError(error).code);
    if (typeof file === 'string') return notFound(response, log, file);
    try {
      const verdict = await checkOutput(host, file, caller, target);
      if (verdict === 'changed-since-link') {
        log.info('signed download refused: the file changed since the link was made');
        sendJson(response, 410, { error: 'The file changed since this link was made; ask for a new link.' });
        return;
      }
      if (typeof verdict === 'string') return notFound(response, log, verdict);
      if (verdict.denied !== undefined) {
        log.warn({ tool: verdict.record.tool, code: verdict.denied }, 'download refused: the current policy no longer allows the tool that produced the file');
        return notFound(response, log, undefined);
      }
      await send(request, response, file, target, verdict.sha256);
    } finally {
      await file.handle.close().catch(() => undefined);
    }
  }

  return { handles: (pathname) => pathname.startsWith(downloadPrefix) || pathname === downloadPrefix.slice(0, -1), handle };
}

interface OpenedOutput {
  sandbox: ConversationSandbox;
  handle: FileHandle;
  stats: Stats;
}

/** Opens the caller's own output through the sandbox's checks, refusing any symlink on the way (also one that stays inside). */
async function openOutput(host: Host, principal: string, target: DownloadTarget): Promise<OpenedOutput> {
  const sandbox = host.sandbox.conversation(target.conversationId, principal);
  // Never create folders for a conversation that does not exist (the sandbox's resolve would).
  const folder = await lstat(sandbox.dir);
  if (!folder.isDirectory()) throw new Error('not a conversation folder');
  const opened = await sandbox.openRead(target.relative, { folders: ['outputs'] });
  if (opened.absolute !== path.join(sandbox.dir, ...target.relative.split('/'))) {
    await opened.handle.close();
    throw new Error('a symlink on the way');
  }
  return { sandbox, handle: opened.handle, stats: opened.stats };
}

type Verdict = string | { record: OutputRecord; sha256: string; denied?: string };

/** The output's record, its current digest and whether the producing tool is still allowed; a string says why it is not served. */
async function checkOutput(host: Host, file: OpenedOutput, caller: Caller, target: DownloadTarget): Promise<Verdict> {
  const record = await readOutputRecord(file.sandbox, target.relative);
  if (record === undefined) return 'no output record';
  const unchanged = file.stats.size === record.bytes && file.stats.mtimeMs === record.mtimeMs;
  const sha256 = unchanged ? record.sha256 : await fileDigest(file.handle);
  if (sha256 !== record.sha256) return 'changed since it was recorded';
  if (caller.linkSha256 !== undefined && caller.linkSha256 !== sha256) return 'changed-since-link';
  for (const name of [record.tool, ...(record.calledAs === undefined ? [] : [record.calledAs])]) {
    const origin = host.getTool(name)?.origin ?? (name === record.tool ? record.origin : undefined);
    try {
      await authorize({
        policy: host.config.policy,
        tool: { name, ...(origin === undefined ? {} : { origin }) },
        request: { tool: name, arguments: {}, conversationId: target.conversationId },
        // "ask": the user approved the call that made the file; a download cannot ask again.
        approvers: [() => Promise.resolve(true)],
      });
    } catch (error) {
      return { record, sha256, denied: toSpillwayError(error).code };
    }
  }
  return { record, sha256 };
}

async function send(request: IncomingMessage, response: ServerResponse, file: OpenedOutput, target: DownloadTarget, sha256: string): Promise<void> {
  const size = file.stats.size;
  const validators: Validators = { etag: etagOf(sha256), lastModified: file.stats.mtime };
  const filename = path.posix.basename(target.relative);
  const mimeType = mimeTypeFor(filename);
  const common: Record<string, string> = {
    etag: validators.etag,
    'last-modified': validators.lastModified.toUTCString(),
    'cache-control': 'private, no-cache',
    'accept-ranges': 'bytes',
  };
  if (isNotModified(request.headers, validators)) {
    response.writeHead(304, common).end();
    return;
  }
  const range = rangeApplies(request.headers, validators) ? parseRange(request.headers.range, size) : 'ignore';
  if (range === 'unsatisfiable') {
    sendJson(response, 416, { error: `The range is past the end of the file (${size} bytes).` }, { ...common, 'content-range': `bytes */${size}` });
    return;
  }
  const { start, end } = range === 'ignore' ? { start: 0, end: size - 1 } : range;
  const headers: Record<string, string> = {
    ...common,
    'content-type': isTextMimeType(mimeType) ? `${mimeType}; charset=utf-8` : mimeType,
    'content-disposition': contentDisposition(filename),
    'content-length': String(Math.max(0, end - start + 1)),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    ...(range === 'ignore' ? {} : { 'content-range': `bytes ${start}-${end}/${size}` }),
  };
  response.writeHead(range === 'ignore' ? 200 : 206, headers);
  if (request.method === 'HEAD' || size === 0) {
    response.end();
    return;
  }
  // Streamed from the handle already opened and checked; the caller closes it. A client that goes away ends the stream, not the server.
  await pipeline(file.handle.createReadStream({ start, end, autoClose: false, highWaterMark: 256 * 1024 }), response).catch(() => {
    response.destroy();
  });
}

function notFound(response: ServerResponse, log: Logger, reason: string | undefined): void {
  if (reason !== undefined) log.info({ reason }, 'download answered 404');
  response.writeHead(404, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(notFoundBody);
}

function refuseLink(response: ServerResponse, message: string): void {
  sendJson(response, 403, { error: message });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}
