import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/temp-dir.js';
import { recordingEntry, spillwayBin } from './upstream-fixtures.js';

const run = promisify(execFile);

async function spillwayUpstreams(t: { after(fn: () => Promise<void>): void }, upstreams: (dir: string) => Record<string, unknown>, extra: string[] = []) {
  const dir = await tempDir(t, 'spillway-cli-');
  const config = path.join(dir, 'spillway.json');
  await writeFile(config, JSON.stringify({ sandbox: { root: path.join(dir, 'sandbox') }, data: { dir: path.join(dir, 'data') }, upstreams: upstreams(dir) }));
  try {
    const { stdout } = await run(process.execPath, [spillwayBin, 'upstreams', '--config', config, ...extra]);
    return { code: 0, stdout };
  } catch (error) {
    const failure = error as { code: number; stdout: string };
    return { code: failure.code, stdout: failure.stdout };
  }
}

test('spillway upstreams lists each upstream with its tools as offered, exit 0 when all connect', async (t) => {
  const { code, stdout } = await spillwayUpstreams(t, (dir) => ({ rec: recordingEntry(path.join(dir, 'received')) }));
  assert.equal(code, 0, stdout);
  assert.match(stdout, /^rec \(stdio: .*recording-upstream\.js\): connected/m);
  assert.match(stdout, /server: recording-upstream 1\.0\.0/);
  assert.match(stdout, /6 tools:\n(\s+rec__\w+\n?){6}/);
});

test('spillway upstreams reports an upstream that fails to start with the reason, exit 1', async (t) => {
  const { code, stdout } = await spillwayUpstreams(
    t,
    (dir) => ({
      rec: recordingEntry(path.join(dir, 'received')),
      broken: { command: process.execPath, args: ['-e', 'process.stderr.write("cannot open database: permission denied\\n"); process.exit(4)'] },
    }),
    ['--json'],
  );
  assert.equal(code, 1);
  const report = JSON.parse(stdout) as { upstreams: { name: string; state: string; lastError?: string; offered: string[] }[] };
  const broken = report.upstreams.find((upstream) => upstream.name === 'broken');
  assert.equal(broken?.state, 'failed');
  assert.match(broken?.lastError ?? '', /could not connect: the server process \(pid \d+\) exited with code 4[\s\S]*cannot open database: permission denied/);
  assert.ok(report.upstreams.find((upstream) => upstream.name === 'rec')?.offered.includes('rec__record'));
});
