// query_files over a 1M-row spill (an aggregate and a sort) beside the same query run
// through DuckDB directly in this process, in the same run. `npm run bench -- query-files`.
//
// query_files = host.execute of the whole call: list the conversation's files, a DuckDB child
//   process (a spare forked ahead of time) whose settings are locked to those files, the query,
//   the rows over IPC, the result's spill (JSONL + profile) and the execution record.
// direct = @duckdb/node-api in this process, the same settings (threads, memory_limit), a fresh
//   instance per query (as query_files has), every result row read as JSON.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createHost } from '../src/runtime/create-host.js';
import { benchConfig } from './bench-setup.js';

const rowCount = Number(process.env.QUERY_FILES_BENCH_ROWS ?? 1_000_000);
const rounds = Number(process.env.QUERY_FILES_BENCH_ROUNDS ?? 5);

async function writeSpill(file: string): Promise<void> {
  const out = createWriteStream(file);
  const regions = ['north', 'south', 'east', 'west', 'central'];
  for (let index = 0; index < rowCount; index += 1) {
    const line = `${JSON.stringify({ id: index + 1, region: regions[index % 5], amount: Math.round(((index * 104729) % 1000000) / 7) / 100, qty: (index * 31) % 97, created: new Date(Date.UTC(2026, 0, 1) + (index % 86400) * 60000).toISOString(), note: `order ${index}` })}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

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
    const { threads, memoryBytes, maxRows } = config.analysis;
    const queries: [string, string][] = [
      ['aggregate', "SELECT region, count(*) AS n, sum(amount) AS total, avg(qty) AS qty FROM 'results/0001-big.jsonl' GROUP BY 1 ORDER BY 1"],
      ['sort (top 1,000)', "SELECT * FROM 'results/0001-big.jsonl' ORDER BY amount DESC, id LIMIT 1000"],
      ['sort (100,000 rows returned)', "SELECT id, amount FROM 'results/0001-big.jsonl' ORDER BY amount DESC, id LIMIT 100000"],
    ];
    console.log(
      `${rowCount.toLocaleString('en-US')}-row JSONL spill, DuckDB threads=${threads}, memory_limit=${Math.floor(memoryBytes / 1048576)}MB, analysis.maxRows=${maxRows}; medians of ${rounds} rounds, interleaved.\n`,
    );
    console.log('| query | direct DuckDB ms | query_files ms | ratio |');
    console.log('|---|---|---|---|');
    let call = 0;
    let first: { direct: number; tool: number } | undefined;
    for (const [name, sql] of queries) {
      const direct: number[] = [];
      const tool: number[] = [];
      for (let round = -1; round < rounds; round += 1) {
        let start = performance.now();
        const instance = await DuckDBInstance.create(':memory:', { threads: String(threads), memory_limit: `${Math.floor(memoryBytes / 1048576)}MB` });
        const connection = await instance.connect();
        const reader = await connection.runAndReadAll(sql.replace("'results/", `'${results}/`));
        reader.getRowObjectsJson();
        instance.closeSync();
        const directMs = performance.now() - start;
        if (round >= 0) direct.push(directMs);
        start = performance.now();
        call += 1;
        const result = await host.execute({ name: 'query_files', arguments: { sql }, id: `q${call}` }, { conversationId: 'bench' });
        if (result.isError) throw new Error(result.text);
        const toolMs = performance.now() - start;
        if (round >= 0) tool.push(toolMs);
        first ??= { direct: directMs, tool: toolMs };
        // query_files forks its next spare DuckDB process after a call; let it load before the next
        // direct run, as model think time between calls does (its CPU would otherwise slow that run).
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      console.log(`| ${name} | ${median(direct).toFixed(0)} | ${median(tool).toFixed(0)} | ${(median(tool) / median(direct)).toFixed(2)}× |`);
    }
    if (first !== undefined) {
      console.log(
        `| first call of the host (aggregate; one run each) | ${first.direct.toFixed(0)} | ${first.tool.toFixed(0)} | ${(first.tool / first.direct).toFixed(2)}× |`,
      );
    }
    await host.close();
    console.log('\nratio = query_files ÷ direct (goal: at most 1.3×, whole-call overhead included).');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
