// What the opened-folder checks (PinnedFolder: open the folder O_DIRECTORY|O_NOFOLLOW,
// readlink /proc/self/fd/N, act through /proc/self/fd/N/name) add to a spill, measured
// in one process, interleaved: the same atomic writes of a spill's data file and its
// .meta.json with the checks (as spillway runs) and without them (pinFolder: false, the
// code before the checks), beside a whole host.execute spill of the same size.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHost } from '../src/runtime/create-host.js';
import { writeFileAtomic } from '../src/sandbox/index.js';
import { benchConfig } from './bench-setup.js';

const sizes: [string, number][] = [
  ['2 KB', 2 * 1024],
  ['100 KB', 100 * 1024],
  ['1 MB', 1024 * 1024],
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export default async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-bench-checks-'));
  const config = benchConfig(dir);
  const host = await createHost({ config });
  const sandbox = host.sandbox.conversation('bench');
  await sandbox.ensure();
  const folder = sandbox.folderPath('results');
  const meta = `${JSON.stringify({ path: 'results/x.txt', format: 'text', bytes: 1, tool: 'bench', callId: 'c', createdAt: '', expiresAt: '' }, null, 2)}\n`;
  console.log('| size | spill files, no checks µs | spill files, with checks µs | checks add µs | ÷ no checks | whole spilled call µs | checks ÷ whole call |');
  console.log('|---|---|---|---|---|---|---|');
  try {
    for (const [label, bytes] of sizes) {
      const data = 'x'.repeat(bytes);
      host.registerTool({ name: `blob_${bytes}`, description: 'bench', inputSchema: { type: 'object' }, handler: () => ({ value: data }) });
      const rounds = bytes >= 1024 * 1024 ? 60 : 300;
      const plain: number[] = [];
      const checked: number[] = [];
      const calls: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        for (const pinFolder of round % 2 === 0 ? [false, true] : [true, false]) {
          const name = path.join(folder, `${pinFolder ? 'p' : 'u'}-${bytes}-${round}.txt`);
          const started = performance.now();
          const written = await writeFileAtomic(name, data, { pinFolder });
          await writeFileAtomic(`${written}.meta.json`, meta, { overwrite: true, pinFolder });
          (pinFolder ? checked : plain).push((performance.now() - started) * 1000);
        }
        const started = performance.now();
        await host.execute({ name: `blob_${bytes}`, arguments: {} }, { conversationId: 'bench' });
        calls.push((performance.now() - started) * 1000);
      }
      const a = median(plain);
      const b = median(checked);
      const call = median(calls);
      console.log(
        `| ${label} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b - a).toFixed(0)} | ${(b / a).toFixed(2)}× | ${call.toFixed(0)} | ${(((b - a) / call) * 100).toFixed(1)}% |`,
      );
    }
  } finally {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log('\nMedians; the two file variants alternate order every round. "checks ÷ whole call": the added time as a share of a spilled host.execute call.');
}
