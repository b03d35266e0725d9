// Export throughput of a fleet on this machine (issue 16): `spillway serve` and
// `spillway worker` as real child processes, MCP clients over Streamable HTTP,
// export_table CSV and XLSX of a table in each session's results/ (the shared bench
// table generator's rows, as JSONL). `npm run bench -- fleet-exports`.
//
// Setups (each its own sandbox; one demo database and one redis-server shared):
//   a   1 replica, no Redis: the local piscina pool (the baseline)
//   a′  a second replica like a, only in the paired rounds: what noise alone gives
//   b   1 replica, coordination.redis, jobs.onReplicas true, no workers: the queue alone
//   c   1 replica, jobs.onReplicas false, + 2 `spillway worker` processes
//   d   1 replica, jobs.onReplicas true, + 2 workers
// b–d need the `spillway worker` verb and redis-server; without them only a (and a′) run.
//
// 1. Paired rounds at concurrency 1: the same export on every setup in turn, order
//    rotated each round; the median paired difference against a is the queue's
//    overhead per job (a 100-row CSV shows it with least noise). For those jobs, where
//    the time went (BullMQ's event stream: added → taken → completed → removed), and
//    BullMQ's own floor (a no-op job in this process against the same Redis).
// 2. Throughput: N clients loop on one format for S seconds per setup; exports/s
//    (completed ÷ time to the last completion), median and p95 latency, ratios to a.
//
// FLEET_EXPORTS_CLIENTS (4), FLEET_EXPORTS_SECONDS (8), FLEET_EXPORTS_CSV_ROWS (100000),
// FLEET_EXPORTS_XLSX_ROWS (15000), FLEET_EXPORTS_ROUNDS (3; big exports, paired),
// FLEET_EXPORTS_TINY_ROUNDS (30), FLEET_EXPORTS_WORKERS (2), FLEET_EXPORTS_SETUPS (a,b,c,d).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { bullPrefix, fileJobQueueName } from '../src/jobs/job-names.js';
import { fileMode, SandboxRoot } from '../src/sandbox/index.js';
import { startBenchRedis, redisUnavailableReason, type BenchRedis } from './bench-redis.js';
import { benchConfig, makeBenchInput } from './bench-setup.js';

// This file runs from dist/bench/; the launcher is the checkout's bin/spillway.js.
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const launcher = path.join(checkout, 'bin', 'spillway.js');
const clientTimeoutMs = 300_000;
const startTimeoutMs = 60_000;

type SetupKey = 'a' | 'a′' | 'b' | 'c' | 'd';
type Kind = 'tiny' | 'csv' | 'xlsx';

interface SetupSpec {
  key: SetupKey;
  label: string;
  /** undefined: no Redis; otherwise coordination.jobs.onReplicas. */
  onReplicas?: boolean;
  workers: number;
  /** Only in the paired rounds (the control). */
  controlOnly?: boolean;
}

interface Sizes {
  clients: number;
  seconds: number;
  rows: Record<Kind, number>;
  rounds: Record<Kind, number>;
  workers: number;
  setups: string[];
}

function numberFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (default ${fallback})`);
  return value;
}

function readSizes(): Sizes {
  return {
    clients: Math.round(numberFromEnv('FLEET_EXPORTS_CLIENTS', 4)),
    seconds: numberFromEnv('FLEET_EXPORTS_SECONDS', 8),
    rows: { tiny: 100, csv: Math.round(numberFromEnv('FLEET_EXPORTS_CSV_ROWS', 100_000)), xlsx: Math.round(numberFromEnv('FLEET_EXPORTS_XLSX_ROWS', 15_000)) },
    rounds: {
      tiny: Math.round(numberFromEnv('FLEET_EXPORTS_TINY_ROUNDS', 30)),
      csv: Math.round(numberFromEnv('FLEET_EXPORTS_ROUNDS', 3)),
      xlsx: Math.round(numberFromEnv('FLEET_EXPORTS_ROUNDS', 3)),
    },
    workers: Math.round(numberFromEnv('FLEET_EXPORTS_WORKERS', 2)),
    setups: (process.env.FLEET_EXPORTS_SETUPS ?? 'a,b,c,d').split(',').map((key) => key.trim()),
  };
}

function setupSpecs(sizes: Sizes, jobsAvailable: boolean): SetupSpec[] {
  const all: SetupSpec[] = [
    { key: 'a', label: '1 replica, no Redis (local pool)', workers: 0 },
    { key: 'a′', label: 'control: a second replica like a', workers: 0, controlOnly: true },
    { key: 'b', label: '1 replica + Redis queue (onReplicas), no workers', onReplicas: true, workers: 0 },
    { key: 'c', label: `1 replica (onReplicas false) + ${sizes.workers} workers`, onReplicas: false, workers: sizes.workers },
    { key: 'd', label: `1 replica (onReplicas true) + ${sizes.workers} workers`, onReplicas: true, workers: sizes.workers },
  ];
  return all.filter(
    (spec) => (spec.key === 'a′' ? sizes.setups.includes('a') : sizes.setups.includes(spec.key)) && (spec.onReplicas === undefined || jobsAvailable),
  );
}

/** Whether this build has the `spillway worker` verb (the jobs branch). */
function workerVerbExists(): boolean {
  return spawnSync(process.execPath, [launcher, 'worker', '--help'], { encoding: 'utf8' }).status === 0;
}

/** A child process of the launcher, resolved with the first stdout line matching `ready`. */
async function startProcess(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SPILLWAY_')));
  const child = spawn(process.execPath, [launcher, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), startTimeoutMs);
  let match: RegExpMatchArray | null = null;
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      match = line.match(ready);
      if (match !== null) break;
    }
  } finally {
    clearTimeout(timer);
  }
  // Leaving the loop closed the line reader: keep draining stdout so the child never blocks on it.
  child.stdout!.resume();
  if (match !== null) return { child, match };
  throw new Error(`spillway ${args.join(' ')} exited before it was ready:\n${stderr}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

interface Outcome {
  ok: boolean;
  ms: number;
  code?: string;
}

/** One MCP session with its three source tables. */
interface BenchClient {
  client: Client;
  sources: Record<Kind, string>;
  /** export_table of the `kind` table, as CSV or XLSX (by default the kind's own format). */
  export(kind: Kind, format?: 'csv' | 'xlsx'): Promise<Outcome>;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ outcome: Outcome; result?: CallToolResult }> {
  const started = performance.now();
  try {
    const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: clientTimeoutMs })) as CallToolResult;
    const ms = performance.now() - started;
    if (result.isError === true) {
      const error = result._meta?.['spillway/error'] as { code?: string } | undefined;
      return { outcome: { ok: false, ms, code: error?.code ?? 'UNKNOWN' }, result };
    }
    return { outcome: { ok: true, ms }, result };
  } catch (error) {
    return { outcome: { ok: false, ms: performance.now() - started, code: /time(d)? ?out/i.test((error as Error).message) ? 'CLIENT_TIMEOUT' : 'TRANSPORT' } };
  }
}

/** The three source tables as JSONL text: the first rows of one table from the shared bench generator. */
function sourceTables(rows: Record<Kind, number>): Record<Kind, string> {
  const most = Math.max(...Object.values(rows));
  // makeBenchInput sizes by bytes; its rows are under 220 bytes as JSON.
  const table = JSON.parse(makeBenchInput('table', most * 220)) as unknown[];
  if (table.length < most) throw new Error(`the bench table has ${table.length} rows, fewer than ${most}`);
  const jsonl = (count: number) =>
    `${table
      .slice(0, count)
      .map((row) => JSON.stringify(row))
      .join('\n')}\n`;
  return { tiny: jsonl(rows.tiny), csv: jsonl(rows.csv), xlsx: jsonl(rows.xlsx) };
}

/** An MCP session whose conversation holds the source tables in results/ (written there as a spill would be). */
async function connectClient(url: string, sandbox: SandboxRoot, tables: Record<Kind, string>): Promise<BenchClient> {
  const client = new Client({ name: 'fleet-exports-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  // Over HTTP the conversation is the MCP session; without auth its principal is `local`.
  const conversation = sandbox.conversation(transport.sessionId!);
  await conversation.ensure();
  const sources = {} as Record<Kind, string>;
  for (const kind of ['tiny', 'csv', 'xlsx'] as const) {
    sources[kind] = `results/fleet-bench-${kind}.jsonl`;
    await writeFile(path.join(conversation.folderPath('results'), `fleet-bench-${kind}.jsonl`), tables[kind], { mode: fileMode });
  }
  return {
    client,
    sources,
    async export(kind, format = kind === 'xlsx' ? 'xlsx' : 'csv') {
      return (await callTool(client, 'export_table', { source: sources[kind], format })).outcome;
    },
  };
}

const keyPrefixOf = (key: SetupKey) => `fleet-exports-${key}:`;

interface RunningSetup extends SetupSpec {
  replica: ChildProcess;
  workerProcesses: ChildProcess[];
  clients: BenchClient[];
}

async function startSetup(
  spec: SetupSpec,
  options: { dir: string; redis: BenchRedis | undefined; sizes: Sizes; tables: Record<Kind, string> },
): Promise<RunningSetup> {
  const { dir, redis, sizes } = options;
  const own = path.join(dir, `setup-${spec.key === 'a′' ? 'control' : spec.key}`);
  await mkdir(own, { recursive: true });
  const config = benchConfig(own, {
    // One demo database for all setups: the first replica builds it, the others find it.
    data: { dir: path.join(dir, 'data') },
    ...(spec.onReplicas === undefined
      ? {}
      : { coordination: { redis: { url: redis!.url, keyPrefix: keyPrefixOf(spec.key) }, jobs: { onReplicas: spec.onReplicas } } }),
  });
  const configFile = path.join(own, 'config.json');
  await writeFile(configFile, JSON.stringify(config));
  const workerProcesses: ChildProcess[] = [];
  let replica: ChildProcess | undefined;
  try {
    const started = await startProcess(['serve', '--config', configFile, '--port', '0'], /spillway is serving MCP \(Streamable HTTP\) at (\S+)/);
    replica = started.child;
    for (let i = 0; i < spec.workers; i += 1) {
      workerProcesses.push((await startProcess(['worker', '--config', configFile], /^spillway worker: ready/)).child);
    }
    const url = started.match[1]!;
    const clientCount = spec.controlOnly === true ? 1 : sizes.clients;
    const clients: BenchClient[] = [];
    const sandbox = await SandboxRoot.open(config.sandbox.root);
    for (let i = 0; i < clientCount; i += 1) clients.push(await connectClient(url, sandbox, options.tables));
    return { ...spec, replica, workerProcesses, clients };
  } catch (error) {
    for (const child of [...workerProcesses, ...(replica === undefined ? [] : [replica])]) await stopProcess(child);
    throw error;
  }
}

async function stopSetup(setup: RunningSetup): Promise<void> {
  await Promise.all(setup.clients.map((client) => client.client.close().catch(() => undefined)));
  // Workers first: a replica with onReplicas false would otherwise leave jobs nobody takes.
  await Promise.all(setup.workerProcesses.map(stopProcess));
  await stopProcess(setup.replica);
}

/** Clock ticks per second, the unit of /proc/PID/stat times; the usual 100 when getconf cannot run (stdout is then null). */
const clockTicks = Number((spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout as string | null)?.trim()) || 100;

/** CPU seconds (user + system) a process has used so far, from /proc (0 once it is gone). */
function cpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command name: state is the 3rd field, utime the 14th, stime the 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return 0;
  }
}

/** The CPU seconds of a setup's replica and workers, and of Redis when it uses it. */
function setupCpuSeconds(setup: RunningSetup, redis: BenchRedis | undefined): number {
  const pids = [setup.replica.pid, ...setup.workerProcesses.map((child) => child.pid), ...(setup.onReplicas === undefined ? [] : [redis?.pid])];
  return pids.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0);
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const quantile = (values: number[], q: number) =>
  values.length === 0 ? Number.NaN : sorted(values)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const median = (values: number[]) => quantile(values, 0.5);
const ms = (value: number) => (Number.isNaN(value) ? '–' : Math.abs(value) < 10 ? value.toFixed(2) : value.toFixed(0));
const kindLabel = (kind: Kind, sizes: Sizes) => `${kind === 'xlsx' ? 'XLSX' : 'CSV'} ${sizes.rows[kind].toLocaleString('en-US')} rows`;

function countError(errors: Record<string, number>, code: string | undefined): void {
  const key = code ?? 'UNKNOWN';
  errors[key] = (errors[key] ?? 0) + 1;
}

/** Concurrency 1, the same export on every setup in turn (order rotated), `rounds` times after one warm-up round. */
async function pairedRounds(setups: RunningSetup[], kind: Kind, rounds: number, sizes: Sizes): Promise<void> {
  const times = new Map<SetupKey, number[]>(setups.map((setup) => [setup.key, []]));
  const differences = new Map<SetupKey, number[]>(setups.map((setup) => [setup.key, []]));
  const errors: Record<string, number> = {};
  for (let round = -1; round < rounds; round += 1) {
    const shift = (round + 1) % setups.length;
    const order = [...setups.slice(shift), ...setups.slice(0, shift)];
    const these = new Map<SetupKey, number>();
    for (const setup of order) {
      const outcome = await setup.clients[0]!.export(kind);
      if (outcome.ok) these.set(setup.key, outcome.ms);
      else countError(errors, outcome.code);
    }
    const base = these.get('a');
    if (round < 0) continue;
    for (const [key, value] of these) {
      times.get(key)!.push(value);
      if (base !== undefined) differences.get(key)!.push(value - base);
    }
  }
  const baseMedian = median(times.get('a') ?? []);
  for (const setup of setups) {
    const own = times.get(setup.key)!;
    const difference = setup.key === 'a' ? '–' : ms(median(differences.get(setup.key)!));
    console.log(
      `| ${kindLabel(kind, sizes)} | ${setup.key} | ${own.length} | ${ms(median(own))} / ${ms(quantile(own, 0.95))} | ${difference} | ${(median(own) / baseMedian).toFixed(2)}× |`,
    );
  }
  if (Object.keys(errors).length > 0) console.log(`| ${kindLabel(kind, sizes)} | errors | ${JSON.stringify(errors)} | | | |`);
}

/**
 * Gives every file-building thread of a setup work before it is timed: 2 concurrent 100-row
 * CSV and XLSX exports per client, `passes` times. Threads start on demand and end after 30 s idle
 * (FilePool), and a thread's first XLSX loads exceljs: a cold thread would be timed otherwise.
 */
async function warmUp(setup: RunningSetup, passes: number): Promise<void> {
  for (let pass = 0; pass < passes; pass += 1) {
    for (const format of ['csv', 'xlsx'] as const) {
      await Promise.all(setup.clients.flatMap((client) => [client.export('tiny', format), client.export('tiny', format)]));
    }
  }
}

interface Throughput {
  exports: number;
  /** CPU seconds of the setup's processes (replica, workers, Redis) per completed export. */
  cpuPerExport: number;
  perSecond: number;
  latencies: number[];
  errors: Record<string, number>;
}

/** Every client of `setup` loops on `kind` for `seconds`; calls still running at the end are waited for and counted. */
async function throughput(setup: RunningSetup, kind: Kind, options: { seconds: number; redis: BenchRedis | undefined }): Promise<Throughput> {
  await warmUp(setup, 1);
  await Promise.all(setup.clients.map((client) => client.export(kind)));
  const cpuAtStart = setupCpuSeconds(setup, options.redis);
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const start = performance.now();
  const until = start + options.seconds * 1000;
  let last = start;
  await Promise.all(
    setup.clients.map(async (client) => {
      while (performance.now() < until) {
        const outcome = await client.export(kind);
        last = performance.now();
        if (outcome.ok) latencies.push(outcome.ms);
        else countError(errors, outcome.code);
      }
    }),
  );
  const cpuPerExport = (setupCpuSeconds(setup, options.redis) - cpuAtStart) / Math.max(1, latencies.length);
  return { exports: latencies.length, cpuPerExport, perSecond: latencies.length / ((last - start) / 1000), latencies, errors };
}

async function throughputTable(setups: RunningSetup[], sizes: Sizes, redis: BenchRedis | undefined): Promise<void> {
  console.log(
    `\nThroughput: ${sizes.clients} clients, each looping on one export for ${sizes.seconds} s per setup (after a warm-up: 100-row exports on every thread, then one export each).\n`,
  );
  console.log('| export | setup | exports | exports/s | × a | median / p95 ms | median × a | CPU s per export | errors | load average after |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const kind of ['csv', 'xlsx'] as const) {
    let base: Throughput | undefined;
    for (const setup of setups.filter((entry) => entry.controlOnly !== true)) {
      const result = await throughput(setup, kind, { seconds: sizes.seconds, redis });
      base ??= setup.key === 'a' ? result : undefined;
      const ratio = (value: number, of: number | undefined) => (of === undefined ? '–' : `${(value / of).toFixed(2)}×`);
      console.log(
        `| ${kindLabel(kind, sizes)} | ${setup.key} | ${result.exports} | ${result.perSecond.toFixed(2)} | ${ratio(result.perSecond, base?.perSecond)} | ${ms(median(result.latencies))} / ${ms(quantile(result.latencies, 0.95))} | ${ratio(median(result.latencies), base === undefined ? undefined : median(base.latencies))} | ${result.cpuPerExport.toFixed(2)} | ${Object.keys(result.errors).length === 0 ? 0 : JSON.stringify(result.errors)} | ${loadAverage()} |`,
      );
    }
  }
}

/**
 * BullMQ's own floor on this machine: Queue.add → a Worker with a no-op processor → the
 * QueueEvents "completed" the caller waits for, all in this process, against the same Redis.
 */
async function bullmqFloor(redisUrl: string, jobs: number): Promise<number[]> {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const prefix = 'fleet-exports-floor';
  const queue = new Queue('floor', { connection, prefix });
  const events = new QueueEvents('floor', { connection, prefix });
  const worker = new Worker('floor', () => Promise.resolve('done'), { connection, prefix });
  try {
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
    const times: number[] = [];
    for (let i = -5; i < jobs; i += 1) {
      const started = performance.now();
      const job = await queue.add('floor', { i });
      await job.waitUntilFinished(events, 10_000);
      if (i >= 0) times.push(performance.now() - started);
    }
    return times;
  } finally {
    await worker.close();
    await events.close();
    await queue.close();
  }
}

/** Milestones of a queued job, from the ids (ms) of BullMQ's event stream. */
const milestones = ['added', 'active', 'completed', 'removed'] as const;
type Milestone = (typeof milestones)[number];

/**
 * Where a queued job's time went, from the setup's BullMQ event stream between `since` and
 * `until` (entry ids are Redis's clock in ms): added → taken (active) → completed → removed (the
 * replica removes a finished job's record before the call returns). Finished jobs are removed,
 * so their own timestamps are gone; the stream keeps the events.
 */
async function jobPhases(redisUrl: string, key: SetupKey, window: { since: number; until: number }): Promise<Record<string, number[]>> {
  const client = new Redis(redisUrl);
  try {
    const entries = await client.xrange(`${bullPrefix(keyPrefixOf(key))}:${fileJobQueueName}:events`, `${window.since}-0`, `${window.until}-0`);
    // A job's id comes from what it builds, so the same export asked again reuses the id once
    // the earlier job is removed: each 'added' starts a new run of that id.
    const runs: Partial<Record<Milestone, number>>[] = [];
    const latest = new Map<string, Partial<Record<Milestone, number>>>();
    for (const [id, fields] of entries) {
      const values = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) values.set(fields[i]!, fields[i + 1]!);
      const event = values.get('event') as Milestone | undefined;
      const jobId = values.get('jobId');
      if (jobId === undefined || event === undefined || !milestones.includes(event)) continue;
      let job = latest.get(jobId);
      if (event === 'added' || job === undefined) {
        job = {};
        runs.push(job);
        latest.set(jobId, job);
      }
      job[event] ??= Number(id.split('-')[0]);
    }
    const complete = runs.filter((job) => milestones.every((milestone) => job[milestone] !== undefined));
    const between = (from: Milestone, to: Milestone) => complete.map((job) => job[to]! - job[from]!);
    return { jobs: [complete.length], wait: between('added', 'active'), run: between('active', 'completed'), removal: between('completed', 'removed') };
  } finally {
    client.disconnect();
  }
}

export default async function fleetExportsBench(): Promise<void> {
  const sizes = readSizes();
  const jobsAvailable = workerVerbExists();
  const unavailable = redisUnavailableReason();
  console.log(
    `Node ${process.version}, ${process.platform}; os.availableParallelism() ${availableParallelism()}; load average at start ${loadAverage()}.` +
      ' Clients, replicas, workers and Redis all share these cores.',
  );
  const wanted = setupSpecs(sizes, jobsAvailable && unavailable === undefined);
  if (!jobsAvailable) console.log('Setups b–d skipped: this build has no `spillway worker` verb (the BullMQ jobs queue).');
  else if (unavailable !== undefined) console.log(`Setups b–d skipped: ${unavailable}.`);
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-fleet-exports-'));
  let redis: BenchRedis | undefined;
  const setups: RunningSetup[] = [];
  try {
    if (wanted.some((spec) => spec.onReplicas !== undefined)) redis = await startBenchRedis(dir);
    const startedAt = performance.now();
    const tables = sourceTables(sizes.rows);
    for (const spec of wanted) setups.push(await startSetup(spec, { dir, redis, sizes, tables }));
    console.log(`Setups started and their clients' sources written in ${((performance.now() - startedAt) / 1000).toFixed(0)} s.`);
    for (const setup of setups) await warmUp(setup, 2);
    console.log(`Each replica and worker: workers.poolSize default (0 = one thread per core, ${availableParallelism()} here).`);
    for (const setup of setups) console.log(`  ${setup.key}: ${setup.label}`);
    console.log(
      '\nConcurrency 1: the same export on each setup in turn, order rotated each round (after 100-row exports on every thread and one warm-up round). Times in ms.\n',
    );
    console.log('| export | setup | rounds | median / p95 | median paired difference to a | median × a |');
    console.log('|---|---|---|---|---|---|');
    const tinyWindow = { since: Date.now(), until: 0 };
    await pairedRounds(setups, 'tiny', sizes.rounds.tiny, sizes);
    tinyWindow.until = Date.now();
    for (const kind of ['csv', 'xlsx'] as const) await pairedRounds(setups, kind, sizes.rounds[kind], sizes);
    if (redis !== undefined) {
      console.log(
        "\nThe 100-row CSV jobs of the paired rounds in BullMQ's event stream (ms, Redis's clock): added → taken by a worker → completed → record removed by the replica.\n",
      );
      console.log('| setup | jobs | added → taken median / p95 | taken → completed median / p95 | completed → removed median / p95 |');
      console.log('|---|---|---|---|---|');
      for (const setup of setups.filter((entry) => entry.onReplicas !== undefined)) {
        const phases = await jobPhases(redis.url, setup.key, tinyWindow);
        console.log(
          `| ${setup.key} | ${phases.jobs![0]} | ${['wait', 'run', 'removal'].map((phase) => `${ms(median(phases[phase]!))} / ${ms(quantile(phases[phase]!, 0.95))}`).join(' | ')} |`,
        );
      }
      const floor = await bullmqFloor(redis.url, sizes.rounds.tiny);
      console.log(
        `\nBullMQ alone (Queue.add → Worker, no-op processor → QueueEvents completed, one process, same Redis), ${floor.length} jobs: median ${ms(median(floor))} ms, p95 ${ms(quantile(floor, 0.95))} ms.`,
      );
    }
    await throughputTable(setups, sizes, redis);
    console.log(`\nload average at end ${loadAverage()}.`);
  } finally {
    for (const setup of setups) await stopSetup(setup);
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
