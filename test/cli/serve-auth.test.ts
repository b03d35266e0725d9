import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { connectClient } from '../auth/helpers.js';
import { spawnChild } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

test('spillway serve with bearer tokens from the environment: 401 without a token, tools with one, the token never printed', async (t) => {
  const dir = await tempDir(t, 'spillway-serve-auth-');
  const file = path.join(dir, 'spillway.json');
  const token = 'serve-auth-token-4b1f0c';
  await writeFile(
    file,
    JSON.stringify({
      sandbox: { root: 'sandbox' },
      data: { dir: 'data' },
      demo: { rows: 200, seed: 3 },
      log: { level: 'info' },
      server: { port: 0, auth: { mode: 'bearer', tokens: [{ principal: 'ci', secretEnv: 'SPILLWAY_TOKEN_CI' }] } },
    }),
  );
  const child = spawnChild(t, process.execPath, [path.join(packageRoot, 'bin', 'spillway.js'), 'serve', '--config', file], {
    cwd: dir,
    env: { PATH: process.env.PATH, SPILLWAY_TOKEN_CI: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('auth:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
  });
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout)?.[1] ?? '';
  assert.match(stdout, /auth: bearer/);
  assert.match(stdout, /--header "Authorization: Bearer \$TOKEN"/);

  const refused = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  });
  assert.equal(refused.status, 401);
  const { client } = await connectClient(url, token);
  assert.ok((await client.listTools()).tools.length > 0);
  await client.close();

  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  assert.ok(!stdout.includes(token) && !stderr.includes(token), 'the token is in neither output nor log');
  assert.match(stderr, /"principal":"ci"/, 'the log names the principal');
});
