import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { downloadSettings } from '../../src/downloads/download-settings.js';
import { SpillwayError } from '../../src/errors.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempConfig, tempHost } from '../helpers/temp-host.js';

const goodKey = 'k'.repeat(32);

const refusal = (key: string, pattern: RegExp) => (error: unknown) =>
  SpillwayError.is(error) && error.code === 'DOWNLOAD_CONFIG_INVALID' && error.details?.key === key && pattern.test(error.message);

test('server.publicUrl without a signing key refuses to start the front, naming the key (a per-process key would break the fleet)', async (t) => {
  const host = await tempHost({ server: { publicUrl: 'https://files.example.com/' } });
  t.after(() => host.cleanup());
  await assert.rejects(
    startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp' }),
    refusal('server.downloads.signingKeyEnv', /^server\.publicUrl is set but no download signing key is/),
  );
});

test('the signing key: from the environment or a file, at least 32 bytes, an unset variable named', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-key-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const withDownloads = async (downloads: Record<string, unknown>, publicUrl?: string) => {
    const made = await tempConfig({ server: { downloads, ...(publicUrl === undefined ? {} : { publicUrl }) } });
    t.after(() => rm(made.dir, { recursive: true, force: true }));
    return made.config;
  };

  const fromEnv = downloadSettings(await withDownloads({ signingKeyEnv: 'DL_KEY' }, 'https://x.example/base/'), { DL_KEY: goodKey });
  assert.equal(fromEnv.publicUrl, 'https://x.example/base');
  assert.equal(Buffer.from(fromEnv.key ?? []).toString(), goodKey);
  assert.equal(fromEnv.linkTtlSeconds, 3600);

  const file = path.join(dir, 'key');
  await writeFile(file, `${goodKey}\n`);
  assert.equal(Buffer.from(downloadSettings(await withDownloads({ signingKeyFile: file }), {}).key ?? []).toString(), goodKey);

  const fromEnvConfig = await withDownloads({ signingKeyEnv: 'DL_KEY' });
  const missingFile = await withDownloads({ signingKeyFile: path.join(dir, 'none') });
  assert.throws(() => downloadSettings(fromEnvConfig, {}), refusal('server.downloads.signingKeyEnv', /DL_KEY, which is not set/));
  assert.throws(() => downloadSettings(fromEnvConfig, { DL_KEY: 'short' }), refusal('server.downloads.signingKeyEnv', /is 5 bytes; it needs at least 32/));
  assert.throws(() => downloadSettings(missingFile, {}), refusal('server.downloads.signingKeyFile', /cannot be read \(ENOENT\)/));
  assert.deepEqual(downloadSettings(await withDownloads({}), {}), { publicUrl: undefined, key: undefined, linkTtlSeconds: 3600 });
});

test('on loopback the route checks the Host header (DNS rebinding), as /mcp does', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const port = new URL(front.url).port;
  const status = await new Promise<number>((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path: '/files/c1/outputs/a.txt', headers: { host: `attacker.example:${port}` } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end();
  });
  assert.equal(status, 403);
  const ok = await fetch(`${front.url.replace(/\/mcp$/, '')}/files/c1/outputs/a.txt`);
  assert.equal(ok.status, 404, 'the right Host gets the ordinary answer');
  const post = await fetch(`${front.url.replace(/\/mcp$/, '')}/files/c1/outputs/a.txt`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
});
