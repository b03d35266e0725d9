import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.js';
import { freePort } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp-dir.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (text: string) => out.push(text), err: (text: string) => err.push(text), interactive: false }, out, err };
}

test('spillway worker without coordination.redis exits 2 with one line that names the setting', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'config.json');
  await writeFile(file, JSON.stringify({ sandbox: { root: path.join(dir, 'sandbox') }, log: { level: 'silent' } }));
  const { io, err } = capture();
  assert.equal(await main(['worker', '--config', file], io), 2);
  assert.match(err.join('\n'), /coordination\.redis is not set/);
});

test('spillway worker with an unreachable Redis exits 1 naming coordination.redis.url', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'config.json');
  const port = await freePort();
  await writeFile(
    file,
    JSON.stringify({ sandbox: { root: path.join(dir, 'sandbox') }, log: { level: 'silent' }, coordination: { redis: { url: `redis://127.0.0.1:${port}` } } }),
  );
  const { io, err } = capture();
  assert.equal(await main(['worker', '--config', file], io), 1);
  assert.match(err.join('\n'), /coordination\.redis\.url/);
});
