// Time to banner: `node bin/spillway.js serve` on a built checkout, from spawn to the
// "spillway is serving" line, beside `node -e ""` (Node's own start, the floor) in the
// same run, and one `spillway call` from spawn to exit. The first start in a fresh data folder also builds the demo database; the
// following starts find it. `npm run bench -- startup`; STARTUP_BENCH_ROUNDS (default 5).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const rounds = Number(process.env.STARTUP_BENCH_ROUNDS ?? 5);
// This file runs from dist/bench/; the launcher is the checkout's bin/spillway.js.
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const launcher = path.join(checkout, 'bin', 'spillway.js');

/** Milliseconds from spawning `node ...args` until stdout holds `marker` (or, without one, until it exits). */
function timeUntil(args: string[], marker?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let seen = '';
    let elapsed: number | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      seen += chunk;
      if (marker !== undefined && elapsed === undefined && seen.includes(marker)) {
        elapsed = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (marker === undefined && code === 0) resolve(performance.now() - started);
      else if (elapsed !== undefined) resolve(elapsed);
      else reject(new Error(`node ${args.join(' ')} exited (${code}) before printing "${marker}":\n${seen}`));
    });
  });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export default async function startupBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-startup-bench-'));
  try {
    const config = path.join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ sandbox: { root: path.join(dir, 'sandbox') }, data: { dir: path.join(dir, 'data') } }));
    const serve = [launcher, 'serve', '--config', config, '--port', '0'];
    const banner = 'spillway is serving';
    const first = await timeUntil(serve, banner);
    const call = [launcher, 'call', 'query_sql', '--config', config, '--set', 'sql=SELECT 1 AS one'];
    const floor: number[] = [];
    const warm: number[] = [];
    const calls: number[] = [];
    // Interleaved, so a change in machine load touches every series alike.
    for (let round = 0; round < rounds; round += 1) {
      floor.push(await timeUntil(['-e', '']));
      warm.push(await timeUntil(serve, banner));
      calls.push(await timeUntil(call));
    }
    const floorMs = median(floor);
    console.log(`| start | ms (median of ${rounds}) | × node -e "" |`);
    console.log('|---|---|---|');
    console.log(`| node -e "" (floor) | ${floorMs.toFixed(0)} | 1.00× |`);
    console.log(`| serve, demo database present | ${median(warm).toFixed(0)} | ${(median(warm) / floorMs).toFixed(2)}× |`);
    console.log(`| \`spillway call query_sql\` round trip (to exit) | ${median(calls).toFixed(0)} | ${(median(calls) / floorMs).toFixed(2)}× |`);
    console.log(`| serve, first start (builds the demo database) | ${first.toFixed(0)} (one run) | ${(first / floorMs).toFixed(2)}× |`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
