// Load: many concurrent MCP sessions over HTTP drive query_sql → export_table CSV →
// export_table XLSX against one real server (a child process on 127.0.0.1, so its RSS
// and open files are its own) for a fixed time per level. `npm run bench -- load`.
//
// Baseline, same run: one session doing the same loop alone (unloaded per-tool times).
// Reported per level: calls/s, p50/p99 per tool (accepted calls), refusals by code,
// calls past the client timeout, queue peaks (sampled from /healthz) against their
// limits, server RSS (start, peak, end) and open files (/proc/PID/fd).
//
// LOAD_BENCH_QUICK=1: levels 5 and 20 for 4 s each (a smoke run).
// LOAD_BENCH_LEVELS=10,50,200 and LOAD_BENCH_SECONDS=20 set the sizes; LOAD_BENCH_MAX_QUEUE
// sets the server's workers.maxQueue (default 64, the shipped default).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHttpFront } from '../src/mcp/http-server.js';
import { startRuntime } from '../src/runtime/start-runtime.js';
import type { GateStats } from '../src/util/admission-gate.js';
import { benchConfig } from './bench-setup.js';

const thisFile = fileURLToPath(import.meta.url);
/** The MCP SDK client's default request timeout: a call past it has failed for the user. */
const clientTimeoutMs = 60_000;
const rowsPerQuery = 1000;
const tools = ['query_sql', 'export_csv', 'export_xlsx'] as const;
type Step = (typeof tools)[number];

interface LevelResult {
  sessions: number;
  seconds: number;
  loops: number;
  calls: number;
  latencies: Record<Step, number[]>;
  refused: Record<string, number>;
  otherErrors: Record<string, number>;
  pastTimeout: number;
  peaks: Record<string, { running: number; waiting: number; limit: number }>;
  rssMb: { start: number; peak: number; end: number };
  fds: { start: number; peak: number; end: number };
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Math.round(Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024);
}

function openFiles(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

async function startServer(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [thisFile, '--server', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    if (line.startsWith('http://')) return { url: line.trim(), child };
  }
  throw new Error('the server child exited before listening');
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'load-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

interface CallOutcome {
  ok: boolean;
  ms: number;
  code?: string;
  value?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

async function timedCall(client: Client, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  const started = performance.now();
  try {
    const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: clientTimeoutMs })) as CallToolResult;
    const ms = performance.now() - started;
    const error = result._meta?.['spillway/error'] as { code?: string } | undefined;
    if (result.isError === true) return { ok: false, ms, code: error?.code ?? 'UNKNOWN' };
    const structured = result.structuredContent as { value?: Record<string, unknown> } | undefined;
    return {
      ok: true,
      ms,
      ...(structured?.value === undefined ? {} : { value: structured.value }),
      ...(result._meta === undefined ? {} : { meta: result._meta }),
    };
  } catch (error) {
    const ms = performance.now() - started;
    const timedOut = /timed out|timeout/i.test((error as Error).message);
    return { ok: false, ms, code: timedOut ? 'CLIENT_TIMEOUT' : 'TRANSPORT' };
  }
}

/** One session's loop: query → CSV → XLSX until the level ends; a refusal backs off briefly and starts over. */
async function sessionLoop(client: Client, index: number, until: number, result: LevelResult): Promise<void> {
  let iteration = 0;
  const record = (step: Step, outcome: CallOutcome): boolean => {
    result.calls += 1;
    if (outcome.ms > clientTimeoutMs || outcome.code === 'CLIENT_TIMEOUT') result.pastTimeout += 1;
    if (outcome.ok) {
      result.latencies[step].push(outcome.ms);
      return true;
    }
    const code = outcome.code ?? 'UNKNOWN';
    const bucket = /BUSY$/.test(code) ? result.refused : result.otherErrors;
    bucket[code] = (bucket[code] ?? 0) + 1;
    return false;
  };
  const backOff = () => new Promise((resolve) => setTimeout(resolve, 250 + ((index * 37) % 250)));
  while (performance.now() < until) {
    iteration += 1;
    const offset = ((index * 7919 + iteration * 104729) % 40) * rowsPerQuery;
    const query = await timedCall(client, 'query_sql', { sql: `SELECT * FROM transactions WHERE id > ${offset} ORDER BY id LIMIT ${rowsPerQuery}` });
    if (!record('query_sql', query)) {
      await backOff();
      continue;
    }
    const source = (query.meta?.['spillway/spill'] as { path?: string } | undefined)?.path;
    if (source === undefined) throw new Error('query_sql did not spill; raise rowsPerQuery');
    if (performance.now() >= until) break;
    if (!record('export_csv', await timedCall(client, 'export_table', { source, format: 'csv' }))) {
      await backOff();
      continue;
    }
    if (performance.now() >= until) break;
    if (!record('export_xlsx', await timedCall(client, 'export_table', { source, format: 'xlsx' }))) {
      await backOff();
      continue;
    }
    result.loops += 1;
  }
}

async function healthQueues(url: string): Promise<Record<string, GateStats>> {
  const response = await fetch(url.replace(/\/mcp$/, '/healthz'));
  return ((await response.json()) as { queues: Record<string, GateStats> }).queues;
}

async function runLevel(url: string, pid: number, sessions: number, seconds: number): Promise<LevelResult> {
  const clients = await Promise.all(Array.from({ length: sessions }, () => connect(url)));
  const result: LevelResult = {
    sessions,
    seconds,
    loops: 0,
    calls: 0,
    latencies: { query_sql: [], export_csv: [], export_xlsx: [] },
    refused: {},
    otherErrors: {},
    pastTimeout: 0,
    peaks: {},
    rssMb: { start: rssMb(pid), peak: 0, end: 0 },
    fds: { start: openFiles(pid), peak: 0, end: 0 },
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const queues = await healthQueues(url).catch(() => ({}) as Record<string, GateStats>);
      for (const [name, queue] of Object.entries(queues)) {
        const peak = (result.peaks[name] ??= { running: 0, waiting: 0, limit: queue.limit });
        peak.running = Math.max(peak.running, queue.running);
        peak.waiting = Math.max(peak.waiting, queue.waiting);
        peak.limit = queue.limit;
      }
      result.rssMb.peak = Math.max(result.rssMb.peak, rssMb(pid));
      result.fds.peak = Math.max(result.fds.peak, openFiles(pid));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const until = performance.now() + seconds * 1000;
  await Promise.all(clients.map((client, index) => sessionLoop(client, index, until, result)));
  sampling = false;
  await sampler;
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  result.rssMb.end = rssMb(pid);
  result.fds.end = openFiles(pid);
  return result;
}

function fmt(ms: number): string {
  return Number.isNaN(ms) ? '–' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

function printLevel(level: LevelResult, baseline: LevelResult): void {
  const accepted = tools.reduce((sum, tool) => sum + level.latencies[tool].length, 0);
  const refused = Object.values(level.refused).reduce((sum, count) => sum + count, 0);
  console.log(
    `| ${level.sessions} | ${level.seconds} | ${(accepted / level.seconds).toFixed(1)} | ${(level.loops / level.seconds).toFixed(2)} | ` +
      tools
        .map((tool) => {
          const p99 = quantile(level.latencies[tool], 0.99);
          const unloaded = quantile(baseline.latencies[tool], 0.5);
          return `${fmt(quantile(level.latencies[tool], 0.5))} / ${fmt(p99)} (${(p99 / unloaded).toFixed(1)}×)`;
        })
        .join(' | ') +
      ` | ${refused} ${JSON.stringify(level.refused)} | ${JSON.stringify(level.otherErrors)} | ${level.pastTimeout} | ` +
      `${Object.entries(level.peaks)
        .filter(([name]) => ['exports', 'sql'].includes(name))
        .map(([name, peak]) => `${name} ${peak.running}+${peak.waiting}/${peak.limit}`)
        .join(', ')} | ${level.rssMb.start}/${level.rssMb.peak}/${level.rssMb.end} | ${level.fds.start}/${level.fds.peak}/${level.fds.end} |`,
  );
}

export default async function loadBench(): Promise<void> {
  const quick = process.env.LOAD_BENCH_QUICK === '1';
  const levels = (process.env.LOAD_BENCH_LEVELS ?? (quick ? '5,20' : '10,50,200')).split(',').map(Number);
  const seconds = Number(process.env.LOAD_BENCH_SECONDS ?? (quick ? 4 : 20));
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-load-'));
  const { url, child } = await startServer(dir);
  const pid = child.pid ?? 0;
  try {
    // Warm-up (threads, the demo database, code paths), then the unloaded baseline.
    await runLevel(url, pid, 1, 2);
    const baseline = await runLevel(url, pid, 1, Math.max(4, seconds / 2));
    console.log(
      `server: 2 file threads, workers.maxQueue ${process.env.LOAD_BENCH_MAX_QUEUE ?? 64}, other caps at their defaults, queueWaitMs 30000; ${rowsPerQuery} rows per query, ${seconds} s per level`,
    );
    console.log(
      `unloaded (1 session) p50 / p99: ${tools.map((tool) => `${tool} ${fmt(quantile(baseline.latencies[tool], 0.5))} / ${fmt(quantile(baseline.latencies[tool], 0.99))} ms`).join(', ')}\n`,
    );
    console.log(
      '| sessions | s | accepted calls/s | loops/s | query p50 / p99 ms (p99 ÷ unloaded p50) | CSV p50 / p99 | XLSX p50 / p99 | refused | other errors | past 60 s | queue peaks running+waiting/limit | RSS MB start/peak/end | open files start/peak/end |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const sessions of levels) printLevel(await runLevel(url, pid, sessions, seconds), baseline);
    const queues = await healthQueues(url);
    const over = Object.entries(queues).filter(([, queue]) => queue.peak.running > queue.maxRunning || queue.peak.waiting > queue.maxWaiting);
    console.log(
      `\nqueue peaks counted by the gates over the whole run: ${Object.entries(queues)
        .map(
          ([name, queue]) =>
            `${name} ${queue.peak.running}+${queue.peak.waiting} (caps ${queue.maxRunning}+${queue.maxWaiting}, refused ${queue.refused.full} full / ${queue.refused.deadline} deadline)`,
        )
        .join('; ')}${over.length === 0 ? ' — none above its caps' : ` — ABOVE CAPS: ${over.map(([name]) => name).join(', ')}`}`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

/** The server child: a runtime as `spillway serve` assembles it, its URL on stdout. */
async function serve(dir: string): Promise<void> {
  const config = benchConfig(dir, { demo: { rows: 50_000 }, workers: { poolSize: 2, maxQueue: Number(process.env.LOAD_BENCH_MAX_QUEUE ?? 64) } });
  const runtime = await startRuntime({ config });
  const front = await startHttpFront(runtime.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  process.stdout.write(`${front.url}\n`);
  process.once('SIGTERM', () => {
    void front
      .close()
      .then(() => runtime.stop())
      .finally(() => process.exit(0));
  });
}

if (process.argv[1] === thisFile && process.argv[2] === '--server') await serve(process.argv[3] ?? tmpdir());
