import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { main } from '../../src/cli/main.js';
import { adoptChild, type AfterHook } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

async function tempConfigFile(t: AfterHook): Promise<{ dir: string; file: string }> {
  const dir = await tempDir(t, 'spillway-cli-');
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, JSON.stringify({ sandbox: { root: 'sandbox' }, data: { dir: 'data' }, demo: { rows: 2000, seed: 3 }, log: { level: 'warn' } }));
  return { dir, file };
}

test('spillway serve builds the demo database on first start and prints the URL, the sandbox and the connect line', async (t) => {
  const { dir, file } = await tempConfigFile(t);
  const child = spawn(process.execPath, [path.join(packageRoot, 'bin', 'spillway.js'), 'serve', '--config', file, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  adoptChild(t, child);
  let stdout = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('connect:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stdout}`)));
  });
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout)?.[1];
  assert.ok(url, stdout);
  assert.match(stdout, new RegExp(`sandbox: +${path.join(dir, 'sandbox').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(stdout, /query_sql: demo SQLite .*demo\.sqlite \(2,000 transactions, 80 accounts, built now in/);
  assert.ok(stdout.includes(`connect: claude mcp add --transport http spillway ${url}`));
  assert.ok(existsSync(path.join(dir, 'data', 'demo.sqlite')));
  const health = (await (await fetch(url.replace('/mcp', '/healthz'))).json()) as { status: string };
  assert.equal(health.status, 'ok');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
});

test('spillway demo runs from the CLI and ends with the walkthrough line', async (t) => {
  const { file } = await tempConfigFile(t);
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['demo', '--config', file, '--conversation', 'cli-demo'], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    interactive: false,
  });
  assert.equal(code, 0, err.join('\n'));
  assert.ok(out.includes('Walkthrough finished.'));
  // With 2,000 rows the query matches fewer than 321 rows, and still spills.
  assert.match(out.join('\n'), /results\/0001-query_sql\.jsonl/);
});
