// Start-up over a sandbox with many outputs (issue 12 item 4): `spillway serve` on a
// sandbox whose conversations hold WATCH_BENCH_FILES files in outputs/ (default 40,000,
// in WATCH_BENCH_CONVERSATIONS conversations, default 400), beside the same serve over an
// empty sandbox in the same run. Reports the time from spawn until /healthz answers,
// until the outputs watcher is ready (its walk runs after serving starts), the kernel
// (inotify) watches the process holds, read from /proc/<pid>/fdinfo, and its RSS.
// WATCH_BENCH_OLD=1 also runs the previous watcher (chokidar, one watch per file) over
// the same tree, for the figures it gave. `npm run bench -- watch`.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, readlink, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxRoot } from '../src/sandbox/index.js';

const files = Number(process.env.WATCH_BENCH_FILES ?? 40_000);
const conversations = Number(process.env.WATCH_BENCH_CONVERSATIONS ?? 400);
const rounds = Number(process.env.WATCH_BENCH_ROUNDS ?? 3);
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const launcher = path.join(checkout, 'bin', 'spillway.js');

interface Figures {
  healthzMs: number;
  readyMs: number;
  watches: number | undefined;
  rssMb: number | undefined;
}

/** inotify watches held by a process (lines "inotify wd:" in the fdinfo of its inotify descriptors); undefined without /proc. */
async function inotifyWatches(pid: number): Promise<number | undefined> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => undefined);
  if (fds === undefined) return undefined;
  let count = 0;
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target !== 'anon_inode:inotify') continue;
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
    count += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return count;
}

async function rssMb(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = status?.match(/^VmRSS:\s+(\d+) kB/m)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

/** Resolves with the first stdout text matching `pattern` (its first group). */
function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      seen += chunk;
      const match = seen.match(pattern);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before printing ${pattern}:\n${seen}`)));
  });
}

async function health(url: string): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(url);
    return (await response.json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function serveOnce(config: string): Promise<Figures> {
  const started = performance.now();
  const child = spawn(process.execPath, [launcher, 'serve', '--config', config, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const url = await waitForLine(child, /health: (http:\/\/\S+)/);
    let report = await health(url);
    // The banner is printed once the server listens: /healthz answers from then on.
    while (report === undefined) report = await health(url);
    const healthzMs = performance.now() - started;
    while ((report?.outputsWatcher as { ready?: boolean } | undefined)?.ready !== true) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      report = await health(url);
    }
    const readyMs = performance.now() - started;
    const pid = child.pid as number;
    return { healthzMs, readyMs, watches: await inotifyWatches(pid), rssMb: await rssMb(pid) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** The watcher before issue 12: chokidar over the root, one watch per output file, waited for at start. */
async function oldWatcher(root: string): Promise<Figures> {
  const script = `
    import { watch } from 'chokidar';
    import path from 'node:path';
    const root = ${JSON.stringify(root)};
    const isId = (name) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name);
    const ignored = (candidate) => {
      const relative = path.relative(root, candidate);
      if (relative === '') return false;
      const segments = relative.split(path.sep);
      if (!isId(segments[0])) return true;
      if (segments.length === 1) return false;
      return segments[1] !== 'outputs';
    };
    const watcher = watch(root, { ignoreInitial: true, followSymlinks: false, ignored, awaitWriteFinish: { stabilityThreshold: 200, pollInterval: 50 } });
    watcher.once('ready', () => console.log('ready 1'));`;
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: checkout, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await waitForLine(child, /ready (1)/);
    const readyMs = performance.now() - started;
    const pid = child.pid as number;
    return { healthzMs: readyMs, readyMs, watches: await inotifyWatches(pid), rssMb: await rssMb(pid) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function fillSandbox(root: string): Promise<void> {
  const sandbox = await SandboxRoot.open(root);
  const perConversation = Math.ceil(files / conversations);
  let written = 0;
  for (let c = 0; c < conversations && written < files; c += 1) {
    const conversation = sandbox.conversation(`bench-${c}`);
    await conversation.ensure();
    const outputs = conversation.folderPath('outputs');
    const batch: Promise<void>[] = [];
    for (let f = 0; f < perConversation && written < files; f += 1, written += 1) {
      batch.push(writeFile(path.join(outputs, `export-${f}.csv`), `id,value\n${f},${c}\n`));
    }
    await Promise.all(batch);
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const fmt = (value: number | undefined, digits = 0): string =>
  value === undefined ? 'n/a' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export default async function watchBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-watch-bench-'));
  try {
    const configFor = async (name: string) => {
      const file = path.join(dir, `${name}.json`);
      // One data folder for both: the demo database is built once, by the warm-up start.
      await writeFile(file, JSON.stringify({ sandbox: { root: path.join(dir, name) }, data: { dir: path.join(dir, 'data') }, log: { level: 'warn' } }));
      return file;
    };
    const empty = await configFor('empty');
    const full = await configFor('full');
    const fillStarted = performance.now();
    await fillSandbox(path.join(dir, 'full'));
    console.log(`(${fmt(files)} files in outputs/ of ${fmt(conversations)} conversations, written in ${fmt((performance.now() - fillStarted) / 1000, 1)} s)\n`);
    await serveOnce(empty); // warm-up: builds the demo database
    const series: Record<'empty' | 'full', Figures[]> = { empty: [], full: [] };
    // Interleaved, so a change in machine load touches both series alike.
    for (let round = 0; round < rounds; round += 1) {
      series.empty.push(await serveOnce(empty));
      series.full.push(await serveOnce(full));
    }
    const row = (label: string, runs: Figures[], floor: number) => {
      const healthz = median(runs.map((run) => run.healthzMs));
      const last = runs[runs.length - 1] as Figures;
      return `| ${label} | ${fmt(healthz)} | ${(healthz / floor).toFixed(2)}× | ${fmt(median(runs.map((run) => run.readyMs)))} | ${fmt(last.watches)} | ${fmt(last.rssMb)} |`;
    };
    const floor = median(series.empty.map((run) => run.healthzMs));
    console.log(`| serve over | /healthz answers, ms (median of ${rounds}) | × empty | watcher ready, ms | inotify watches | RSS MB |`);
    console.log('|---|---|---|---|---|---|');
    console.log(row('empty sandbox', series.empty, floor));
    console.log(row(`${fmt(files)} outputs`, series.full, floor));
    if (process.env.WATCH_BENCH_OLD === '1') {
      const old = await oldWatcher(path.join(dir, 'full'));
      console.log(
        `| previous watcher alone (chokidar, per file) | ${fmt(old.readyMs)} (ready) | ${(old.readyMs / floor).toFixed(2)}× | ${fmt(old.readyMs)} | ${fmt(old.watches)} | ${fmt(old.rssMb)} |`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
