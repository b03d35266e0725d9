// What Redis coordination (coordination.redis) adds to a spilled tool call: the
// same call on a host without coordination and on one whose spill numbers come
// from a real redis-server, alternated in pairs so machine load hits both alike.
// Goal (issue 16): under 1 ms median added on a spill.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Coordinator } from '../src/coordination/coordinator.js';
import type { Host } from '../src/host/host.js';
import { assembleHost } from '../src/runtime/create-host.js';
import { startBenchRedis, redisUnavailableReason, type BenchRedis } from './bench-redis.js';
import { benchConfig, makeBenchInput } from './bench-setup.js';

/** Result sizes and the pairs each runs by default (sized to finish in well under a minute here). */
const cases: { label: string; bytes: number; pairs: number }[] = [
  { label: '2 KB', bytes: 2 * 1024, pairs: 400 },
  { label: '100 KB', bytes: 100 * 1024, pairs: 120 },
];
const warmupPairs = 20;
const pings = 1000;

interface BenchHost {
  host: Host;
  coordinator: Coordinator | undefined;
  call(): Promise<void>;
  reset(): Promise<void>;
}

/** A host as spill.bench.ts builds one, with one tool returning `table` as an upstream MCP server would. */
async function benchHost(dir: string, table: string, redisUrl?: string): Promise<BenchHost> {
  const config = benchConfig(dir, {
    spill: { thresholdChars: 1000 },
    ...(redisUrl === undefined ? {} : { coordination: { redis: { url: redisUrl, keyPrefix: 'bench:' } } }),
  });
  const { host, coordinator } = await assembleHost({ config, builtins: false });
  host.registerTool({
    name: 'bench',
    description: 'bench',
    inputSchema: { type: 'object' },
    handler: () => ({ mcp: { content: [{ type: 'text', text: table }] } }),
  });
  const folder = path.join(host.sandbox.conversation('conv').dir, 'results');
  let n = 0;
  return {
    host,
    coordinator,
    async call() {
      n += 1;
      const result = await host.execute({ name: 'bench', arguments: {}, id: `c${n}` }, { conversationId: 'conv' });
      if (result.isError || result.spill === undefined) throw new Error(`bench call did not spill: ${result.text.slice(0, 300)}`);
    },
    async reset() {
      for (const name of await readdir(folder).catch(() => [] as string[])) await rm(path.join(folder, name), { force: true });
    },
  };
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * 0.95))]!;
const ms = (value: number) => (Math.abs(value) < 10 ? value.toFixed(3) : value.toFixed(1));

async function timeEach(count: number, run: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times;
}

export default async function fleetBench(): Promise<void> {
  const scale = Number(process.env.FLEET_BENCH_SCALE ?? '1');
  if (!Number.isFinite(scale) || scale <= 0) throw new Error('FLEET_BENCH_SCALE must be a positive number (default 1)');
  const load = loadAverage();
  console.log(`Node ${process.version}, ${process.platform}; load average at start ${load}.`);
  const unavailable = redisUnavailableReason();
  if (unavailable !== undefined) {
    console.log(`Skipped: ${unavailable}.`);
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-fleet-bench-'));
  let redis: BenchRedis | undefined;
  const hosts: BenchHost[] = [];
  let client: Redis | undefined;
  try {
    redis = await startBenchRedis(dir);
    client = new Redis(redis.url, { lazyConnect: true });
    await client.connect();
    const ping = client;
    await timeEach(100, () => ping.ping());
    const pingTimes = await timeEach(pings, () => ping.ping());
    console.log(
      `Redis ${(await client.info('server')).match(/redis_version:(\S+)/)?.[1] ?? '?'} on 127.0.0.1, no persistence. PING round trip (ioredis, ${pings}×): median ${ms(median(pingTimes))} ms, p95 ${ms(p95(pingTimes))} ms.\n`,
    );
    console.log(
      'memory = host without coordination; redis = coordination.redis (spill numbers from Redis). The same spilled table call on each, in rounds of three (a second memory host as control), order rotated.\n',
    );
    console.log(
      '| result | size | pairs | memory median / p95 ms | redis median / p95 ms | increment alone median ms, back to back / after 2 ms idle | median paired difference ms | control: memory − memory ms | redis/memory | goal < 1 ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const { label, bytes, pairs: defaultPairs } of cases) {
      const pairs = Math.max(10, Math.round(defaultPairs * scale));
      const table = makeBenchInput('table', bytes);
      const caseDir = path.join(dir, label.replace(' ', ''));
      const memory = await benchHost(path.join(caseDir, 'memory'), table);
      hosts.push(memory);
      const shared = await benchHost(path.join(caseDir, 'redis'), table, redis.url);
      hosts.push(shared);
      // A second host without coordination: its paired difference to the first is what noise alone gives.
      const control = await benchHost(path.join(caseDir, 'control'), table);
      hosts.push(control);
      const memoryTimes: number[] = [];
      const redisTimes: number[] = [];
      const differences: number[] = [];
      const controlDifferences: number[] = [];
      const rotations = [
        [memory, shared, control],
        [shared, control, memory],
        [control, memory, shared],
        [memory, control, shared],
        [shared, memory, control],
        [control, shared, memory],
      ];
      for (let pair = -warmupPairs; pair < pairs; pair += 1) {
        // Rotate the order, so none always runs first or right after another's garbage.
        const times = new Map<BenchHost, number>();
        for (const bench of rotations[(pair + warmupPairs) % rotations.length]!) {
          const start = performance.now();
          await bench.call();
          times.set(bench, performance.now() - start);
        }
        if (pair >= 0) {
          memoryTimes.push(times.get(memory)!);
          redisTimes.push(times.get(shared)!);
          differences.push(times.get(shared)! - times.get(memory)!);
          controlDifferences.push(times.get(control)! - times.get(memory)!);
        }
        if (pair % 50 === 49) for (const bench of hosts) await bench.reset();
      }
      const coordinator = shared.coordinator!;
      const incrementTimes = await timeEach(200, () => coordinator.increment('bench-alone', 0));
      // The same script after 2 ms idle, as between spills: Redis (and this process) must be woken and scheduled again.
      const idleTimes: number[] = [];
      for (let i = 0; i < 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        idleTimes.push(...(await timeEach(1, () => coordinator.increment('bench-alone', 0))));
      }
      const added = median(differences);
      console.log(
        `| table | ${label} | ${pairs} | ${ms(median(memoryTimes))} / ${ms(p95(memoryTimes))} | ${ms(median(redisTimes))} / ${ms(p95(redisTimes))} | ${ms(median(incrementTimes))} / ${ms(median(idleTimes))} | ${ms(added)} | ${ms(median(controlDifferences))} | ${(median(redisTimes) / median(memoryTimes)).toFixed(2)}× | ${added < 1 ? 'met' : 'missed'} |`,
      );
      for (const bench of hosts) await bench.host.close();
      hosts.length = 0;
    }
    console.log(`\nload average at end ${loadAverage()}. FLEET_BENCH_SCALE=N multiplies the pairs (default ${cases.map((c) => c.pairs).join(' / ')}).`);
    console.log(
      'increment alone: the spill-number script (EVAL, coordinator.increment) timed by itself after the pairs, 200 back to back, then 200 each after 2 ms idle.',
    );
  } finally {
    for (const bench of hosts) await bench.host.close().catch(() => undefined);
    await client?.quit().catch(() => client?.disconnect());
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
