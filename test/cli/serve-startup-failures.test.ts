import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { spawnChild, type AfterHook } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Runs `spillway serve` for real with a config file; resolves with its exit code and stderr once it exits. */
async function serveFails(
  t: AfterHook,
  config: Record<string, unknown>,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const dir = await tempDir(t, 'spillway-serve-fail-');
  const file = path.join(dir, 'spillway.json');
  await writeFile(
    file,
    // No log.level: a failed start shows no log lines at the default level either.
    JSON.stringify({ sandbox: { root: 'sandbox' }, data: { dir: 'data' }, demo: { rows: 200, seed: 3 }, ...config }),
  );
  const child = spawnChild(t, process.execPath, [path.join(packageRoot, 'bin', 'spillway.js'), 'serve', '--config', file, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  return { code, stderr, stdout };
}

/** One line on stderr, from the CLI, without a stack trace. */
function assertOneLine(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`);
  assert.match(lines[0] ?? '', /^spillway serve: /);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(result.stderr, /^\s+at /m);
}

test('spillway serve on a port in use ends with one line saying so and exit code 1', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const port = (blocker.address() as AddressInfo).port;
  const result = await serveFails(t, {}, ['--port', String(port)]);
  assertOneLine(result, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
});

test('spillway serve with a sandbox root that is a file, or lies under a file, ends with one line naming sandbox.root', async (t) => {
  const dir = await tempDir(t, 'spillway-root-');
  const file = path.join(dir, 'not-a-folder');
  await writeFile(file, 'x');
  assertOneLine(await serveFails(t, { sandbox: { root: file } }), /sandbox\.root .* is a file, not a folder/);
  assertOneLine(await serveFails(t, { sandbox: { root: path.join(file, 'sandbox') } }), /sandbox\.root .* cannot be created: .* is a file/);
});

test('spillway serve with an unusable server.auth ends with one line naming the key', async (t) => {
  assertOneLine(await serveFails(t, { server: { host: '0.0.0.0', port: 0 } }), /server\.auth\.mode is "none".*docs\/auth\.md/);
  const bearer = { mode: 'bearer', tokens: [{ principal: 'alice', secretEnv: 'SPILLWAY_TOKEN_ALICE' }] };
  assertOneLine(await serveFails(t, { server: { port: 0, auth: bearer } }), /server\.auth\.tokens\[0\]\.secretEnv .*SPILLWAY_TOKEN_ALICE.* not set/);
  // A schema violation's problems are joined on the one line.
  assertOneLine(await serveFails(t, { server: { port: 0, auth: { mode: 'bearer' } } }), /^spillway serve: Invalid configuration: server\.auth/);
});
