import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Attachment } from '../../src/host/tool.js';
import type { Logger } from '../../src/log/logger.js';
import { startHttpFront, type HttpFront, type HttpFrontOptions } from '../../src/mcp/http-server.js';
import { connectClient } from '../auth/helpers.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

export const aliceToken = 'alice-download-secret-7c2e91';
export const bobToken = 'bob-download-secret-41fa0d';
export const bearerAuth = {
  mode: 'bearer' as const,
  tokens: [
    { principal: 'alice', sha256: createHash('sha256').update(aliceToken).digest('hex') },
    { principal: 'bob', sha256: createHash('sha256').update(bobToken).digest('hex') },
  ],
};

export interface DownloadFixture extends TempHost {
  front: HttpFront;
  /** http://127.0.0.1:<port>, the base of download URLs. */
  base: string;
  /** The signing key's file (server.downloads.signingKeyFile). */
  keyFile: string;
  /** An MCP client of a principal (alice or bob), closed when the test ends. */
  client(token: string): Promise<Client>;
}

/**
 * A real host and HTTP front with bearer auth (alice, bob), a signing key in a
 * file and server.publicUrl set to the front's own address once it listens.
 */
export async function downloadFixture(
  t: TestContext,
  options: { overrides?: Record<string, unknown>; front?: Partial<HttpFrontOptions>; now?: () => Date; publicUrl?: boolean; logger?: Logger } = {},
): Promise<DownloadFixture> {
  const keyDir = await mkdtemp(path.join(tmpdir(), 'spillway-key-'));
  t.after(() => rm(keyDir, { recursive: true, force: true }));
  const keyFile = path.join(keyDir, 'download.key');
  await writeFile(keyFile, `${randomBytes(48).toString('base64')}\n`, { mode: 0o600 });
  const temp = await tempHost(
    { server: { auth: bearerAuth, downloads: { signingKeyFile: keyFile } }, ...options.overrides },
    { ...(options.now === undefined ? {} : { now: options.now }), ...(options.logger === undefined ? {} : { logger: options.logger }) },
  );
  t.after(() => temp.cleanup());
  const front = await startHttpFront(temp.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth, ...options.front });
  t.after(() => front.close());
  const base = front.url.replace(/\/mcp$/, '');
  if (options.publicUrl !== false) temp.host.updateConfig({ ...temp.host.config, server: { ...temp.host.config.server, publicUrl: base } });
  return {
    ...temp,
    front,
    base,
    keyFile,
    async client(token) {
      const { client } = await connectClient(front.url, token);
      t.after(() => client.close());
      return client;
    },
  };
}

/** Puts `bytes` in a conversation's args/ (as a model's file would be) and exports it with attach_file through the MCP client; returns its download card. */
export async function exportBytes(
  fixture: TempHost,
  client: Client,
  input: { principal: string; conversationId: string; name: string; bytes: Uint8Array },
): Promise<{ card: Attachment; result: CallToolResult }> {
  await fixture.host.sandbox
    .conversation(input.conversationId, input.principal)
    .writeFile(`args/${input.name}`, input.bytes, { folders: ['args'], overwrite: true });
  const result = (await client.callTool({
    name: 'attach_file',
    arguments: { path: `args/${input.name}` },
    _meta: { 'spillway/conversation': input.conversationId },
  })) as CallToolResult;
  const structured = result.structuredContent as { attachments?: Attachment[] } | undefined;
  const card = structured?.attachments?.[0];
  if (result.isError === true || card === undefined) throw new Error(`attach_file failed: ${JSON.stringify(result.content)}`);
  return { card, result };
}

/** The URL of a file by the route's path rule, without a signed link. */
export function fileUrl(base: string, conversationId: string, relative: string): string {
  return `${base}/files/${[conversationId, ...relative.split('/')].map(encodeURIComponent).join('/')}`;
}

export async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}
