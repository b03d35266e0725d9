// query_files over a 1M-row spill (an aggregate, a join, two sorts) beside the same query run
// through DuckDB directly in this process, in the same run; then the first call of a served host,
// a fresh host each round. `npm run bench -- query-files`.
//
// query_files = host.execute of the whole call: list the conversation's files, a DuckDB child
//   process (a spare forked ahead of time) whose settings are locked to those files, the query,
//   the rows over IPC, the result's spill (JSONL + profile) and the execution record.
// direct = @duckdb/node-api in this process, the same settings (threads, memory_limit), a fresh
//   instance per query (as query_files has), every result row read as JSON. This process has run
//   DuckDB before every timed direct run (a warm-up round), so the baseline is DuckDB warm.
// first call = a new host (createHost, then the 'serving' event as `spillway serve` emits it once
//   its banner is out), QUERY_FILES_BENCH_SERVE_WAIT_MS (2 s) for a client to connect, then its first
//   tool call; the host is closed after it. Each round interleaves one direct run and one first call.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Config } from '../src/config/schema.js';
import { createHost } from '../src/runtime/create-host.js';
import { benchConfig } from './bench-setup.js';

const rowCount = Number(process.env.QUERY_FILES_BENCH_ROWS ?? 1_000_000);
const rounds = Number(process.env.QUERY_FILES_BENCH_ROUNDS ?? 5);
const firstRounds = Number(process.env.QUERY_FILES_BENCH_FIRST_ROUNDS ?? 7);
const serveWaitMs = Number(process.env.QUERY_FILES_BENCH_SERVE_WAIT_MS ?? 2000);
const regions = ['north', 'south', 'east', 'west', 'central'];

async function writeSpill(file: string): Promise<void> {
  const out = createWriteStream(file);
  for (let index = 0; index < rowCount; index += 1) {
    const line = `${JSON.stringify({ id: index + 1, region: regions[index % 5], amount: Math.round(((index * 104729) % 1000000) / 7) / 100, qty: (index * 31) % 97, created: new Date(Date.UTC(2026, 0, 1) + (index % 86400) * 60000).toISOString(), note: `order ${index}` })}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** A second, small table to join with: one row per region. */
async function writeRegions(file: string): Promise<void> {
  const lines = regions.map((region, index) => JSON.stringify({ region, manager: `manager ${index + 1}`, target: (index + 1) * 100000 }));
  await writeFile(file, `${lines.join('\n')}\n`);
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] as number;
const spread = (values: number[]) => `${sorted(values)[0]?.toFixed(0)}–${sorted(values).at(-1)?.toFixed(0)}`;
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const queries: [string, string][] = [
  ['aggregate', "SELECT region, count(*) AS n, sum(amount) AS total, avg(qty) AS qty FROM 'results/0001-big.jsonl' GROUP BY 1 ORDER BY 1"],
  [
    'join (orders × regions, grouped)',
    "SELECT r.manager, count(*) AS n, sum(o.amount) AS total, sum(o.amount) / any_value(r.target) AS of_target FROM 'results/0001-big.jsonl' o JOIN 'results/0002-regions.jsonl' r ON o.region = r.region GROUP BY 1 ORDER BY 1",
  ],
  ['sort (top 1,000)', "SELECT * FROM 'results/0001-big.jsonl' ORDER BY amount DESC, id LIMIT 1000"],
  ['sort (100,000 rows returned)', "SELECT id, amount FROM 'results/0001-big.jsonl' ORDER BY amount DESC, id LIMIT 100000"],
];

/** The query through DuckDB in this process, as query_files's child runs it; ms. */
async function direct(config: Config, results: string, sql: string): Promise<number> {
  const { threads, memoryBytes } = config.analysis;
  const start = performance.now();
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads), memory_limit: `${Math.floor(memoryBytes / 1048576)}MB` });
  const connection = await instance.connect();
  const reader = await connection.runAndReadAll(sql.replace(/'results\//g, `'${results}/`));
  reader.getRowObjectsJson();
  instance.closeSync();
  return performance.now() - start;
}

let call = 0;
/** One query_files call through the host; ms. */
async function viaTool(host: Awaited<ReturnType<typeof createHost>>, sql: string): Promise<number> {
  const start = performance.now();
  call += 1;
  const result = await host.execute({ name: 'query_files', arguments: { sql }, id: `q${call}` }, { conversationId: 'bench' });
  if (result.isError) throw new Error(result.text);
  return performance.now() - start;
}

export default async function queryFilesBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-bench-query-files-'));
  try {
    const config = benchConfig(dir);
    const host = await createHost({ config });
    // As `spillway serve` does once its banner is out: the spare DuckDB child loads while the spill is written.
    host.emit('serving');
    const conversation = host.sandbox.conversation('bench');
    await conversation.ensure();
    const results = conversation.folderPath('results');
    await writeSpill(path.join(results, '0001-big.jsonl'));
    await writeRegions(path.join(results, '0002-regions.jsonl'));
    const { threads, memoryBytes, maxRows } = config.analysis;
    console.log(
      `${rowCount.toLocaleString('en-US')}-row JSONL spill, DuckDB threads=${threads}, memory_limit=${Math.floor(memoryBytes / 1048576)}MB, analysis.maxRows=${maxRows}; load average ${load()}.\n`,
    );
    console.log(`Warm host: medians of ${rounds} rounds after a warm-up round, interleaved, ${serveWaitMs} ms between calls.\n`);
    console.log('| query | direct DuckDB ms | query_files ms | ratio |');
    console.log('|---|---|---|---|');
    for (const [name, sql] of queries) {
      const directMs: number[] = [];
      const toolMs: number[] = [];
      for (let round = -1; round < rounds; round += 1) {
        const d = await direct(config, results, sql);
        const t = await viaTool(host, sql);
        if (round >= 0) {
          directMs.push(d);
          toolMs.push(t);
        }
        // query_files forks its next spare DuckDB process after a call; let it load before the next
        // direct run, as model think time between calls does (its CPU would otherwise slow that run).
        await sleep(serveWaitMs);
      }
      console.log(`| ${name} | ${median(directMs).toFixed(0)} | ${median(toolMs).toFixed(0)} | ${(median(toolMs) / median(directMs)).toFixed(2)}× |`);
    }
    await host.close();

    console.log(
      `\nFirst call of a served host: ${firstRounds} rounds per query, each a new host ('serving' emitted, ${serveWaitMs} ms, then its first call), beside a direct run; load average ${load()}.\n`,
    );
    console.log(
      '| first call | direct DuckDB ms median (min–max) | first query_files ms median (min–max) | ratio of medians | ratios per round (min–median–max) |',
    );
    console.log('|---|---|---|---|---|');
    for (const [name, sql] of queries.slice(0, 2)) {
      const directMs: number[] = [];
      const toolMs: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < firstRounds; round += 1) {
        const fresh = await createHost({ config });
        fresh.emit('serving');
        await sleep(serveWaitMs);
        const d = await direct(config, results, sql);
        const t = await viaTool(fresh, sql);
        await fresh.close();
        directMs.push(d);
        toolMs.push(t);
        ratios.push(t / d);
        await sleep(500);
      }
      const r = sorted(ratios);
      console.log(
        `| ${name} | ${median(directMs).toFixed(0)} (${spread(directMs)}) | ${median(toolMs).toFixed(0)} (${spread(toolMs)}) | ${(median(toolMs) / median(directMs)).toFixed(2)}× | ${r[0]?.toFixed(2)}–${median(r).toFixed(2)}–${r.at(-1)?.toFixed(2)}× |`,
      );
    }
    console.log(`\nload average at the end ${load()}.`);
    console.log('ratio = query_files ÷ direct (goal: at most 1.3×, whole-call overhead included).');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
