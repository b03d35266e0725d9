import assert from 'node:assert/strict';
import { lstat, readdir, readFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { loadConfig } from '../../src/config/load-config.js';
import type { Host } from '../../src/host/host.js';
import { recoverSandbox } from '../../src/retention/recover-sandbox.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { createHost } from '../../src/runtime/create-host.js';
import { isPublishTempName, metadataSuffix } from '../../src/sandbox/index.js';
import { childExit, spawnChild } from '../helpers/child-process.js';
import { makeRows } from '../helpers/temp-host.js';
import { rejectionCode, tempDir } from '../helpers/temp-dir.js';
import type { CrashStep } from '../fixtures/crash-step.js';

// Each case kills a real host process (SIGKILL) at one named step of a publish or a sweep
// (test/fixtures/crash-step.ts replaces the file-system call of that step in the child only),
// then reopens the sandbox in this process and checks what a restart must guarantee.

const child = new URL('../fixtures/crash-child.js', import.meta.url);
const day = 86_400_000;
const graceMs = 600_000;

interface Case {
  action: 'spill' | 'spill-large' | 'export' | 'attach' | 'sweep';
  step: CrashStep;
  match: string;
  nth?: number;
  what: string;
}

const publishSteps: CrashStep[] = ['temp-open', 'before-link', 'after-link', 'after-publish'];
const cases: Case[] = [
  // A small spill (synchronous publish) writes its data under a temporary name, creates its
  // sidecar at its own name, then links the data last.
  { action: 'spill', step: 'temp-open', match: 'crash_rows', nth: 1, what: 'data half written' },
  { action: 'spill', step: 'sidecar-open', match: 'crash_rows', nth: 1, what: 'sidecar just created, empty' },
  { action: 'spill', step: 'before-link', match: 'crash_rows', nth: 1, what: 'both written, nothing linked' },
  { action: 'spill', step: 'after-link', match: 'crash_rows', nth: 1, what: 'data with two links' },
  { action: 'spill', step: 'after-publish', match: 'crash_rows', nth: 1, what: 'spill published' },
  // A large spill (streamed) publishes its sidecar (1st temporary file opened second, linked first), then its data.
  { action: 'spill-large', step: 'temp-open', match: 'crash_rows', nth: 1, what: 'data half written' },
  { action: 'spill-large', step: 'temp-open', match: 'crash_rows', nth: 2, what: 'sidecar just created' },
  { action: 'spill-large', step: 'before-link', match: 'crash_rows', nth: 1, what: 'both written, nothing linked' },
  { action: 'spill-large', step: 'after-link', match: 'crash_rows', nth: 1, what: 'sidecar with two links' },
  { action: 'spill-large', step: 'after-publish', match: 'crash_rows', nth: 1, what: 'sidecar published, data not' },
  { action: 'spill-large', step: 'after-link', match: 'crash_rows', nth: 2, what: 'data with two links' },
  { action: 'spill-large', step: 'after-publish', match: 'crash_rows', nth: 2, what: 'spill published' },
  ...publishSteps.map((step): Case => ({ action: 'export', step, match: 'crash.csv', what: `export to outputs/, ${step}` })),
  ...publishSteps.map((step): Case => ({ action: 'attach', step, match: 'crash.jsonl', what: `attach_file to outputs/, ${step}` })),
  // The sweep removes data then sidecar for each of the 3 seeded spills.
  { action: 'sweep', step: 'before-remove', match: 'crash_rows', nth: 1, what: 'recorded, nothing removed' },
  { action: 'sweep', step: 'after-remove', match: 'crash_rows', nth: 1, what: 'first data file removed, its sidecar not' },
  { action: 'sweep', step: 'after-remove', match: 'crash_rows', nth: 4, what: 'two spills removed, one left' },
];

function hostConfig(dir: string) {
  return loadConfig({
    env: {},
    overrides: {
      sandbox: { root: path.join(dir, 'sandbox') },
      data: { dir: path.join(dir, 'data') },
      log: { level: 'silent' },
      spill: { thresholdChars: 1, tools: {} },
    },
  });
}

async function openHost(dir: string): Promise<Host> {
  const host = await createHost({ config: hostConfig(dir) });
  host.registerTool({ name: 'crash_rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: makeRows(500) }) });
  return host;
}

/** Every file under a folder, relative to it ("results/0001-x.jsonl"). */
async function walk(dir: string, relative = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, relative), { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await walk(dir, child)));
    else found.push(child);
  }
  return found;
}

const isLeftover = (relative: string, all: readonly string[]) =>
  isPublishTempName(path.posix.basename(relative)) || (relative.endsWith(metadataSuffix) && !all.includes(relative.slice(0, -metadataSuffix.length)));

/** No torn file under a final name, and nothing a reader would refuse. */
async function assertWhole(host: Host, files: readonly string[]): Promise<void> {
  const sandbox = host.sandbox.conversation('c1');
  for (const relative of files) {
    if (isLeftover(relative, files) || relative.startsWith('.')) continue;
    const info = await lstat(path.join(sandbox.dir, relative));
    assert.equal(info.nlink, 1, `${relative} still has ${info.nlink} links after start-up recovery`);
    const { data } = await sandbox.readFile(relative);
    const text = data.toString('utf8');
    if (relative.endsWith(metadataSuffix)) {
      JSON.parse(text);
    } else if (relative.startsWith('results/')) {
      const meta = JSON.parse((await sandbox.readFile(`${relative}${metadataSuffix}`)).data.toString('utf8')) as { rows: number; bytes: number };
      assert.equal(data.length, meta.bytes, `${relative}: size differs from its sidecar`);
      const lines = text.split('\n').filter((line) => line !== '');
      assert.equal(lines.length, meta.rows);
      for (const line of lines) JSON.parse(line);
    } else if (relative === 'outputs/crash.csv') {
      assert.equal((parse(data, { bom: true }) as unknown[]).length, 501);
    } else if (relative === 'outputs/crash.jsonl') {
      assert.deepEqual(data, (await sandbox.readFile('results/0001-crash_rows.jsonl')).data);
    }
  }
}

for (const item of cases) {
  test(`crash during ${item.action} at ${item.step}${item.nth === undefined ? '' : ` #${item.nth}`} (${item.what}): a restart leaves nothing torn, unreadable or left over`, async (t) => {
    const dir = await tempDir(t);
    const seededAt = Date.now();
    const seeded: string[] = [];
    if (item.action !== 'spill' && item.action !== 'spill-large') {
      const seeder = await openHost(dir);
      const count = item.action === 'sweep' ? 3 : 1;
      for (let index = 0; index < count; index += 1) {
        const result = await seeder.execute({ name: 'crash_rows', arguments: {} }, { conversationId: 'c1' });
        seeded.push(result.spill?.path as string);
      }
      const conversationDir = seeder.sandbox.conversation('c1').dir;
      await seeder.close();
      if (item.action === 'sweep') {
        const old = new Date(seededAt - 10 * day);
        for (const relative of await walk(conversationDir, 'results')) await utimes(path.join(conversationDir, relative), old, old);
      }
    }

    const args = ['--root', path.join(dir, 'sandbox'), '--data', path.join(dir, 'data'), '--action', item.action, '--step', item.step, '--match', item.match];
    args.push('--nth', String(item.nth ?? 1), '--now', new Date(seededAt).toISOString());
    const killed = spawnChild(t, process.execPath, [child.pathname, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    await childExit(killed);
    assert.equal(killed.signalCode, 'SIGKILL', `the child was not killed at ${item.step} (exit code ${killed.exitCode})`);

    // Restart: the start-up recovery, then the same checks a reader makes.
    const host = await openHost(dir);
    t.after(() => host.close());
    const sandbox = host.sandbox.conversation('c1');
    await recoverSandbox({ root: host.sandbox.root, graceMs });
    const afterRestart = await walk(sandbox.dir);
    await assertWhole(host, afterRestart);
    // A spill published without its sidecar would be data nobody can describe: never.
    for (const relative of afterRestart) {
      if (relative.startsWith('results/') && !isLeftover(relative, afterRestart) && !relative.endsWith(metadataSuffix)) {
        assert.ok(afterRestart.includes(`${relative}${metadataSuffix}`), `${relative} has no sidecar`);
      }
    }
    // Every path the sweep removed answers "expired", never "not found".
    for (const relative of seeded) {
      if (afterRestart.includes(relative)) continue;
      assert.equal(await rejectionCode(sandbox.readFile(relative)), 'PATH_EXPIRED', `${relative} was removed without a record`);
    }

    // One sweep later (past the grace period), nothing is left over, in outputs/ too.
    const later = new Date(Math.max(Date.now(), seededAt) + graceMs + 60_000);
    await sweepSandbox({ root: host.sandbox.root, olderThanMs: 7 * day, tempGraceMs: graceMs, now: () => later });
    const afterSweep = await walk(sandbox.dir);
    assert.deepEqual(
      afterSweep.filter((relative) => isLeftover(relative, afterSweep)),
      [],
    );
    await assertWhole(host, afterSweep);
    for (const relative of seeded) {
      if (item.action === 'sweep') assert.equal(await rejectionCode(sandbox.readFile(relative)), 'PATH_EXPIRED');
    }

    // And the conversation keeps working: a new spill gets a fresh, readable name.
    const again = await host.execute({ name: 'crash_rows', arguments: {} }, { conversationId: 'c1' });
    assert.equal(again.isError, false);
    assert.equal((await readFile(path.join(sandbox.dir, again.spill?.path as string), 'utf8')).split('\n').filter(Boolean).length, 500);
  });
}
