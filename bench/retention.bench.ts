// Retention sweep: spillway's sweep of 100,000 files in 1,000 conversations
// beside `find ROOT -mtime +7 -delete` on an identical copy, in the same run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sweepSandbox } from '../src/retention/sweep.js';

const conversations = Number(process.env.BENCH_RETENTION_CONVERSATIONS ?? 1000);
const rounds = Number(process.env.BENCH_RETENTION_ROUNDS ?? 3);
/** Where the copies live: the default temp folder, or e.g. /dev/shm to take a busy disk out of the comparison. */
const workDir = process.env.BENCH_RETENTION_DIR ?? tmpdir();
const day = 86_400_000;

/**
 * 100 files per conversation (conversations under ten principal folders): 40 spills + 40 sidecars,
 * 5 each in errors/, args/, scripts/ and outputs/. 60% of non-outputs are 10 days old.
 */
function buildTemplate(root: string, nowMs: number): number {
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, '.spillway-sandbox'), 'bench\n');
  const old = new Date(nowMs - 10 * day);
  const young = new Date(nowMs - 2 * day);
  let files = 0;
  for (let c = 0; c < conversations; c += 1) {
    // The sandbox layout: <root>/<principal>/<conversation>/… (ten principals of 100 conversations each).
    const dir = path.join(root, `principal-${c % 10}`, `conv-${String(c).padStart(4, '0')}`);
    for (const folder of ['results', 'errors', 'args', 'scripts', 'outputs']) mkdirSync(path.join(dir, folder), { recursive: true });
    const put = (relative: string, content: string, isOld: boolean) => {
      const file = path.join(dir, relative);
      writeFileSync(file, content);
      const when = isOld ? old : young;
      utimesSync(file, when, when);
      files += 1;
    };
    for (let i = 0; i < 40; i += 1) {
      const name = `results/${String(i + 1).padStart(4, '0')}-query_sql.jsonl`;
      const isOld = i % 5 < 3;
      put(name, '{"id":1,"name":"row"}\n'.repeat(20), isOld);
      put(`${name}.meta.json`, '{"format":"jsonl"}\n', isOld);
    }
    for (const folder of ['errors', 'args', 'scripts']) for (let i = 0; i < 5; i += 1) put(`${folder}/f${i}.txt`, 'x'.repeat(200), i < 3);
    // outputs/ is never swept; keep it young so `find -mtime +7` deletes the same set.
    for (let i = 0; i < 5; i += 1) put(`outputs/export-${i}.csv`, 'a,b\n1,2\n', false);
  }
  return files;
}

function copyTree(from: string, to: string): void {
  const result = spawnSync('cp', ['-a', from, to]);
  if (result.status !== 0) throw new Error(`cp -a failed: ${result.stderr.toString()}`);
}

function countFiles(root: string): number {
  const result = spawnSync('find', [root, '-type', 'f'], { maxBuffer: 1 << 30 });
  return result.stdout
    .toString()
    .split('\n')
    .filter((line) => line.length > 0).length;
}

export default async function retentionBench(): Promise<void> {
  const work = mkdtempSync(path.join(workDir, 'spillway-bench-retention-'));
  console.log(`work folder: ${work} (BENCH_RETENTION_DIR to change)`);
  try {
    const nowMs = Date.now();
    const template = path.join(work, 'template');
    let started = performance.now();
    const files = buildTemplate(template, nowMs);
    console.log(
      `sandbox: ${files.toLocaleString('en-US')} files in ${conversations.toLocaleString('en-US')} conversations (built in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    console.log('| round | spillway sweep (s) | deleted | find -mtime +7 -delete (s) | deleted | sweep / find |');
    console.log('|---|---|---|---|---|---|');
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      const sweepCopy = path.join(work, `sweep-${round}`);
      const findCopy = path.join(work, `find-${round}`);
      copyTree(template, sweepCopy);
      copyTree(template, findCopy);
      // Alternate which goes first, so neither always gets the warmer cache.
      const runSweep = async () => {
        const t0 = performance.now();
        const report = await sweepSandbox({ root: sweepCopy, olderThanMs: 7 * day, now: () => new Date(nowMs) });
        return { seconds: (performance.now() - t0) / 1000, deleted: report.deleted.files, rss: process.memoryUsage().rss };
      };
      const runFind = () => {
        const t0 = performance.now();
        const result = spawnSync('find', [findCopy, '-mtime', '+7', '-delete']);
        if (result.status !== 0) throw new Error(`find failed: ${result.stderr.toString()}`);
        return { seconds: (performance.now() - t0) / 1000, deleted: files + 1 - countFiles(findCopy) }; // + 1: the marker file
      };
      let sweep: Awaited<ReturnType<typeof runSweep>>;
      let find: ReturnType<typeof runFind>;
      if (round % 2 === 1) {
        sweep = await runSweep();
        find = runFind();
      } else {
        find = runFind();
        sweep = await runSweep();
      }
      const sweepLeft = countFiles(sweepCopy) - conversations - 1; // minus the expiry logs and the marker
      if (sweepLeft !== files - find.deleted) console.log(`(warning: the sweep left ${sweepLeft} files, find left ${files - find.deleted})`);
      ratios.push(sweep.seconds / find.seconds);
      console.log(
        `| ${round} | ${sweep.seconds.toFixed(2)} | ${sweep.deleted.toLocaleString('en-US')} | ${find.seconds.toFixed(2)} | ${find.deleted.toLocaleString('en-US')} | ${(sweep.seconds / find.seconds).toFixed(1)}× |`,
      );
      rmSync(sweepCopy, { recursive: true, force: true });
      rmSync(findCopy, { recursive: true, force: true });
    }
    started = performance.now();
    const dryCopy = path.join(work, 'dry');
    copyTree(template, dryCopy);
    const t0 = performance.now();
    const dry = await sweepSandbox({ root: dryCopy, olderThanMs: 7 * day, now: () => new Date(nowMs), dryRun: true, listPaths: true });
    console.log(`dry run with the full list: ${((performance.now() - t0) / 1000).toFixed(2)} s, ${dry.paths?.length.toLocaleString('en-US')} paths`);
    console.log(
      `median ratio sweep/find: ${ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)]?.toFixed(1)}× (peak RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB)`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
