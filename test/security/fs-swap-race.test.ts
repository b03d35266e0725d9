import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';
import { startSwapRace, whileRacing } from './swap-race.js';
import { snapshotTree } from './tree-snapshot.js';

const conversation = 'c1';
const rounds = 4000;
const day = 86_400_000;

/** A host with one conversation, and an "outside" folder shaped like a conversation (so a redirected write would succeed there). */
async function raceEnv(t: TestContext): Promise<TempHost & { dir: string; outside: string; conversationDir: string }> {
  const env = await tempHost();
  const outside = await mkdtemp(path.join(tmpdir(), 'spillway-outside-'));
  t.after(async () => {
    await env.cleanup();
    await rm(outside, { recursive: true, force: true });
  });
  for (const folder of ['results', 'errors', 'args', 'scripts', 'outputs', 'results/sub']) await mkdir(path.join(outside, folder), { recursive: true });
  // Shaped like a principal folder holding this conversation, for swaps of the principal folder.
  for (const folder of ['results/sub', 'errors', 'args', 'scripts', 'outputs'])
    await mkdir(path.join(outside, 'as-principal', conversation, folder), { recursive: true });
  await writeFile(path.join(outside, 'results/sub/canary.txt'), 'outside canary\n');
  await writeFile(path.join(outside, 'results/0001-x.jsonl.meta.json'), '{"format":"LEAKED-META","rows":999}\n');
  await writeFile(path.join(outside, '.expired.jsonl'), '{"path":"results/0099-gone.jsonl","expiredAt":"LEAKED-EXPIRED"}\n');
  env.host.registerTool({ name: 'big', description: 'a result that spills', inputSchema: { type: 'object' }, handler: () => ({ value: 'x'.repeat(5000) }) });
  await env.host.sandbox.conversation(conversation).ensure();
  return { ...env, outside, conversationDir: path.join(env.host.sandbox.conversation(conversation).dir) };
}

const allowedRefusals = new Set(['PATH_ESCAPES', 'PATH_NOT_FOUND', 'PATH_NOT_FILE', 'SANDBOX_ROOT_INVALID', 'PATH_EXISTS', 'PATH_EXPIRED']);

test('swap race: write_file never writes outside while args/ or the conversation folder is swapped for a symlink', async (t) => {
  const env = await raceEnv(t);
  const before = await snapshotTree(env.outside);
  for (const [target, link] of [
    [path.join(env.conversationDir, 'args'), path.join(env.outside, 'args')],
    [env.conversationDir, env.outside],
    [path.dirname(env.conversationDir), path.join(env.outside, 'as-principal')],
  ] as const) {
    const alternate = path.join(path.dirname(target), `.alt-${path.basename(target)}`);
    await symlink(link, alternate);
    const race = startSwapRace({ target, alternates: [alternate], rounds });
    const results = await whileRacing(
      race,
      (index) =>
        env.host.execute({ name: 'write_file', arguments: { path: `args/w${index}.json`, content: `{"n":${index}}` } }, { conversationId: conversation }),
      { maximum: 3000 },
    );
    for (const result of results) if (result.isError) assert.ok(allowedRefusals.has(result.error?.code ?? ''), `${result.error?.code}: ${result.text}`);
    assert.deepEqual(await snapshotTree(env.outside), before, `nothing outside changed (${results.length} writes raced ${target})`);
  }
});

test('swap race: spills never land outside while results/ or the conversation folder is swapped for a symlink', async (t) => {
  const env = await raceEnv(t);
  const before = await snapshotTree(env.outside);
  for (const [target, link] of [
    [path.join(env.conversationDir, 'results'), path.join(env.outside, 'results')],
    [env.conversationDir, env.outside],
  ] as const) {
    const alternate = path.join(path.dirname(target), `.alt-${path.basename(target)}`);
    await symlink(link, alternate);
    const race = startSwapRace({ target, alternates: [alternate], rounds });
    const results = await whileRacing(race, () => env.host.execute({ name: 'big', arguments: {} }, { conversationId: conversation }), { maximum: 2000 });
    // A spill that cannot be written safely is a result without a path, never a failed call.
    for (const result of results) assert.equal(result.isError, false, result.text);
    assert.deepEqual(await snapshotTree(env.outside), before, `nothing outside changed (${results.length} spills raced ${target})`);
  }
});

test('swap race: sidecar reads (.meta.json, .expired.jsonl) never block on a FIFO and never read a file outside', async (t) => {
  const env = await raceEnv(t);
  await writeFile(path.join(env.conversationDir, 'results/0001-x.jsonl'), '{"a":1}\n');
  await writeFile(path.join(env.conversationDir, 'results/0001-x.jsonl.meta.json'), '{"format":"jsonl","rows":1}\n');
  await writeFile(path.join(env.conversationDir, '.expired.jsonl'), '{"path":"results/0098-old.jsonl","expiredAt":"2026-01-01T00:00:00.000Z"}\n');
  for (const target of [path.join(env.conversationDir, 'results/0001-x.jsonl.meta.json'), path.join(env.conversationDir, '.expired.jsonl')]) {
    const fifo = `${path.dirname(target)}/.alt-fifo-${path.basename(target)}`;
    const link = `${path.dirname(target)}/.alt-link-${path.basename(target)}`;
    execFileSync('mkfifo', [fifo]);
    await symlink(path.join(env.outside, path.relative(env.conversationDir, target)), link);
    const race = startSwapRace({ target, alternates: [fifo, link], rounds });
    const texts = await whileRacing(
      race,
      async (index) => {
        const call =
          index % 2 === 0 ? { name: 'list_files', arguments: { dir: 'results' } } : { name: 'read_file', arguments: { path: 'results/0099-gone.jsonl' } };
        return (await env.host.execute(call, { conversationId: conversation })).text;
      },
      { maximum: 3000 },
    );
    for (const text of texts) assert.doesNotMatch(text, /LEAKED/, 'a sidecar outside the conversation was read');
  }
});

test('swap race (slow: 12 rounds of 600 files swept while a folder is swapped 3,000 times): the sweep never deletes outside the conversation or inside outputs/, whatever is swapped in mid-sweep', async (t) => {
  const env = await raceEnv(t);
  const kept = path.join(env.conversationDir, 'outputs/kept');
  await mkdir(kept, { recursive: true });
  const sub = path.join(env.conversationDir, 'results/sub');
  // The alternates live beside the conversation's folders, where the sweep never looks (it would remove old links in results/).
  const toOutside = path.join(env.conversationDir, '.alt-out');
  const toOutputs = path.join(env.conversationDir, '.alt-outputs');
  await symlink(path.join(env.outside, 'results/sub'), toOutside);
  await symlink(kept, toOutputs);
  const conversationAlternate = path.join(path.dirname(env.conversationDir), '.alt-c1');
  await symlink(env.outside, conversationAlternate);
  const principalDir = path.dirname(env.conversationDir);
  const principalAlternate = path.join(env.sandboxRoot, '.alt-principal');
  await symlink(path.join(env.outside, 'as-principal'), principalAlternate);
  const future = () => new Date(Date.now() + 30 * day);
  let swept = 0;
  for (let round = 0; round < 12; round += 1) {
    // The same names inside, outside and in outputs/: a deletion redirected by a swap would find its name there.
    await mkdir(sub, { recursive: true });
    for (let index = 0; index < 150; index += 1) {
      const name = `old-${round}-${index}.txt`;
      await writeFile(path.join(sub, name), 'inside\n');
      await writeFile(path.join(env.outside, 'results/sub', name), 'inside\n');
      await writeFile(path.join(env.outside, 'as-principal', conversation, 'results/sub', name), 'inside\n');
      await writeFile(path.join(kept, name), 'inside\n');
    }
    const outsideBefore = await snapshotTree(env.outside);
    const outputsBefore = await snapshotTree(path.join(env.conversationDir, 'outputs'));
    const race =
      round % 4 === 3
        ? startSwapRace({ target: principalDir, alternates: [principalAlternate], rounds: 3000 })
        : round % 4 === 2
          ? startSwapRace({ target: env.conversationDir, alternates: [conversationAlternate], rounds: 3000 })
          : startSwapRace({ target: sub, alternates: [toOutside, toOutputs], rounds: 3000 });
    const reports = await whileRacing(race, () => sweepSandbox({ root: env.sandboxRoot, olderThanMs: 7 * day, now: future }), { maximum: 50 });
    swept += reports.reduce((sum, report) => sum + report.deleted.files, 0);
    assert.deepEqual(await snapshotTree(env.outside), outsideBefore, `round ${round}: nothing outside the conversation was deleted`);
    assert.deepEqual(await snapshotTree(path.join(env.conversationDir, 'outputs')), outputsBefore, `round ${round}: nothing in outputs/ was deleted`);
  }
  assert.ok(swept > 0, 'the sweep still removed the old files inside');
});
