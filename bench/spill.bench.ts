// The time and memory a spill adds to a tool call, beside the floor no spill can
// avoid: for text, fs.writeFile of the same bytes; for a JSON table, one JSON.parse
// plus fs.writeFile of the same bytes. Each measurement runs in a child process
// (node --expose-gc) so peak memory is that case's alone.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../src/runtime/create-host.js';
import type { Host } from '../src/host/host.js';
import { TableProfiler } from '../src/spill/profile.js';
import { benchConfig, makeBenchInput } from './bench-setup.js';

type Kind = 'text' | 'table';
type Mode = 'floor' | 'spill' | 'inline';

const sizes: [string, number][] = [
  ['2 KB', 2 * 1024],
  ['100 KB', 100 * 1024],
  ['10 MB', 10 * 1024 * 1024],
  ['100 MB', 100 * 1024 * 1024],
];
const here = fileURLToPath(import.meta.url);

interface Bench {
  run(): Promise<void>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

async function prepare(kind: Kind, mode: Mode, input: string, dir: string): Promise<Bench> {
  if (mode === 'floor') {
    let n = 0;
    const out = path.join(dir, 'floor');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(out, { recursive: true });
    return {
      async run() {
        if (kind === 'table') JSON.parse(input);
        n += 1;
        await writeFile(path.join(out, `f${n}`), input);
      },
      reset: () =>
        rm(out, { recursive: true, force: true })
          .then(() => mkdir(out, { recursive: true }))
          .then(() => undefined),
      close: async () => undefined,
    };
  }
  const config = benchConfig(dir, { spill: { thresholdChars: 1000, tools: mode === 'inline' ? { bench: { spill: false } } : {} } });
  const host: Host = await createHost({ config, builtins: false });
  // A table arrives as an upstream MCP server sends it: JSON text in a text block, parsed by the unwrapper.
  host.registerTool({
    name: 'bench',
    description: 'bench',
    inputSchema: { type: 'object' },
    handler: () => (kind === 'table' ? { mcp: { content: [{ type: 'text', text: input }] } } : { value: input }),
  });
  const results = path.join(dir, 'sandbox', 'conv', 'results');
  let call = 0;
  return {
    async run() {
      call += 1;
      const result = await host.execute({ name: 'bench', arguments: {}, id: `c${call}` }, { conversationId: 'conv' });
      if (result.isError || (mode === 'spill' && result.spill === undefined)) throw new Error(`bench call failed: ${result.text.slice(0, 300)}`);
    },
    async reset() {
      for (const name of await readdir(results).catch(() => [] as string[])) await rm(path.join(results, name), { force: true });
    },
    close: () => host.close(),
  };
}

function readStatus(field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Child: one case. Memory mode measures one call's peak RSS above the input held; time mode interleaves floor and spill. */
async function child(kind: Kind, inputFile: string, what: string): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-bench-'));
  try {
    // Read, not generated here, so building the input leaves no garbage that would hide the case's own peak.
    const input = readFileSync(inputFile, 'utf8');
    const bytes = input.length;
    const inputBytes = Buffer.byteLength(input);
    if (what.startsWith('memory:')) {
      const mode = what.slice('memory:'.length) as Mode;
      // A small call first, so lazy compilation is not counted as the case's peak (a full-size one
      // would leave freed buffers for the measured call to reuse, hiding its allocations).
      const warm = await prepare(kind, mode, makeBenchInput(kind, 4096), path.join(dir, 'warm'));
      await warm.run();
      await warm.close();
      const bench = await prepare(kind, mode, input, dir);
      gc();
      gc();
      const base = readStatus('VmRSS');
      writeFileSync('/proc/self/clear_refs', '5'); // resets the peak (VmHWM) to the current RSS
      await bench.run();
      const peak = readStatus('VmHWM');
      await bench.close();
      process.stdout.write(JSON.stringify({ inputBytes, extra: peak - base }));
      return;
    }
    const modes: Mode[] = ['floor', 'spill', 'inline'];
    const benches = await Promise.all(modes.map((mode) => prepare(kind, mode, input, path.join(dir, mode))));
    const rounds = bytes >= 50 * 1024 * 1024 ? 3 : Math.max(5, Math.min(200, Math.floor((40 * 1024 * 1024) / bytes)));
    const times: number[][] = modes.map(() => []);
    const cpu: number[][] = modes.map(() => []);
    // The table profile is gathered inside the spill's own pass over the rows; it is also timed
    // alone over the same parsed rows, in the same rounds, so its share of the spill can be given.
    const rows = kind === 'table' ? (JSON.parse(input) as Record<string, unknown>[]) : [];
    const profileTimes: number[] = [];
    for (let round = -1; round < rounds; round += 1) {
      if (kind === 'table') {
        const start = performance.now();
        const profiler = new TableProfiler();
        for (const row of rows) profiler.add(row);
        profiler.profile();
        if (round >= 0) profileTimes.push(performance.now() - start);
      }
      for (const [index, bench] of benches.entries()) {
        const start = performance.now();
        const cpuStart = process.cpuUsage();
        await bench.run();
        const elapsed = performance.now() - start;
        const cpuUsed = process.cpuUsage(cpuStart);
        if (round >= 0) {
          times[index]!.push(elapsed);
          cpu[index]!.push((cpuUsed.user + cpuUsed.system) / 1000);
        }
        if (bytes > 1024 * 1024 || round % 20 === 19) await bench.reset();
      }
    }
    for (const bench of benches) await bench.close();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    process.stdout.write(
      JSON.stringify({
        inputBytes,
        rounds,
        floor: median(times[0]!),
        spill: median(times[1]!),
        inline: median(times[2]!),
        floorCpu: median(cpu[0]!),
        spillCpu: median(cpu[1]!),
        profile: profileTimes.length > 0 ? median(profileTimes) : Number.NaN,
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function spawnChild(kind: Kind, inputFile: string, what: string): Record<string, number> {
  const out = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', here, '--child', kind, inputFile, what], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out) as Record<string, number>;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));

export default async function spillBench(): Promise<void> {
  const only = process.env.SPILL_BENCH_SIZES?.split(',');
  console.log(`Node ${process.version}, ${process.platform}; medians; each case in its own child process.`);
  console.log('spill = host.execute with a tool returning the data (table: JSON text in an MCP text block); inline = the same call with spill: false.');
  console.log('floor: text = fs.writeFile of the same bytes; table = JSON.parse + fs.writeFile of the same bytes.\n');
  console.log(
    '| result | size | floor ms | spill ms | spill/floor | CPU spill/floor | inline ms | floor peak +MB | spill peak +MB | spill − floor peak ÷ result | profile ms | profile ÷ rest of spill |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const inputs = await mkdtemp(path.join(tmpdir(), 'spillway-bench-inputs-'));
  try {
    for (const kind of ['text', 'table'] as Kind[]) {
      for (const [label, bytes] of sizes) {
        if (only && !only.includes(label.replace(' ', ''))) continue;
        const inputFile = path.join(inputs, `${kind}-${bytes}`);
        await writeFile(inputFile, makeBenchInput(kind, bytes));
        const time = spawnChild(kind, inputFile, 'time');
        const floorMemory = spawnChild(kind, inputFile, 'memory:floor');
        const spillMemory = spawnChild(kind, inputFile, 'memory:spill');
        await rm(inputFile);
        const ratio = time.spill! / time.floor!;
        console.log(
          `| ${kind} | ${label} | ${ms(time.floor!)} | ${ms(time.spill!)} | ${ratio.toFixed(2)}× | ${(time.spillCpu! / time.floorCpu!).toFixed(2)}× | ${ms(time.inline!)} | ${mb(floorMemory.extra!)} | ${mb(spillMemory.extra!)} | ${((spillMemory.extra! - floorMemory.extra!) / spillMemory.inputBytes!).toFixed(2)} | ${kind === 'table' ? ms(time.profile!) : '–'} | ${kind === 'table' ? `${((100 * time.profile!) / (time.spill! - time.profile!)).toFixed(0)}%` : '–'} |`,
        );
      }
    }
  } finally {
    await rm(inputs, { recursive: true, force: true });
  }
  console.log('\nfloor/spill peak +MB: peak RSS of one call above the RSS with the input held (VmHWM after clear_refs).');
  console.log('spill − floor peak ÷ result: what the spill holds beyond the floor, in copies of the result (goal: at most 1).');
  console.log('CPU spill/floor: the same ratio on process CPU time (user+system), steadier than wall time on a shared machine.');
  console.log(
    'profile ms: the table profile (types, nulls, min/max, distinct, frequent values) over the parsed rows, timed alone; the spill includes it. Goal: at most 20% of the rest of the spill at 10 MB.',
  );
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as Kind, process.argv[4] as string, process.argv[5] as string);
}
