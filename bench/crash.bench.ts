// Crash benchmark: a real `spillway serve` (node bin/spillway.js) is killed with SIGKILL
// N times while MCP clients over HTTP run query_sql (a spill) then export_table (CSV or
// XLSX into outputs/) in a loop; each kill lands at a random moment. Every restart runs
// the start-up recovery. At the end the sandbox is checked as a restarted server sees it:
// torn files under a final name (goal 0), files a read refuses or cannot open (goal 0),
// leftovers after one sweep (goal 0). What the kills left before any recovery is counted
// too, as the baseline that shows the kills hit the windows that matter.
// `npm run bench -- crash`; CRASH_BENCH_ROUNDS (default 200), CRASH_BENCH_CLIENTS (3).
import { spawn, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parse } from 'csv-parse/sync';
import JSZip from 'jszip';
import { listConversations } from '../src/retention/disk-usage.js';
import { recoverSandbox } from '../src/retention/recover-sandbox.js';
import { conversationDir } from '../src/retention/plan-conversation.js';
import { sweepSandbox } from '../src/retention/sweep.js';
import { ConversationSandbox, isPublishTempName, metadataSuffix } from '../src/sandbox/index.js';

const rounds = Number(process.env.CRASH_BENCH_ROUNDS ?? 200);
const clients = Number(process.env.CRASH_BENCH_CLIENTS ?? 3);
/** Kills land uniformly at random in this window after the clients start. */
const killWindowMs = 2500;
const graceMs = 600_000;
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const launcher = path.join(checkout, 'bin', 'spillway.js');

interface Started {
  child: ChildProcess;
  url: string;
}

function startServer(config: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, 'serve', '--config', config, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let seen = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      seen += chunk;
      const match = /at (http:\/\/\S+)/.exec(seen);
      if (match?.[1] !== undefined) resolve({ child, url: match[1] });
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before its banner:\n${seen}`)));
  });
}

/** One client's loop: query (spill), then export it, until the server dies. */
async function work(url: string, index: number, counts: { spills: number; exports: number }, signal: AbortSignal): Promise<void> {
  const client = new Client({ name: `crash-bench-${index}`, version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { signal });
    for (let call = 0; ; call += 1) {
      const limit = 2000 + ((call * 977 + index * 131) % 6000);
      const query = await client.callTool({ name: 'query_sql', arguments: { sql: `SELECT * FROM transactions LIMIT ${limit}` } }, undefined, { signal });
      const spill = (query._meta as { 'spillway/spill'?: { path?: string } } | undefined)?.['spillway/spill']?.path;
      if (spill === undefined) continue;
      counts.spills += 1;
      await client.callTool(
        { name: 'export_table', arguments: { source: spill, format: call % 2 === 0 ? 'csv' : 'xlsx', filename: `export-${call}` } },
        undefined,
        {
          signal,
        },
      );
      counts.exports += 1;
    }
  } catch {
    // the server was killed
  } finally {
    // Not awaited: the transport of a dead server may take long to give up, and nothing depends on it.
    void client.close().catch(() => undefined);
  }
}

interface Census {
  finalFiles: number;
  torn: string[];
  unreadable: string[];
  /** Paths, relative to the root. */
  twoLinks: string[];
  temporary: string[];
  sidecarsWithoutData: string[];
  dataWithoutSidecar: string[];
}

const leftoverKinds = ['twoLinks', 'temporary', 'sidecarsWithoutData', 'dataWithoutSidecar'] as const;

async function walk(dir: string, relative = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, relative), { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await walk(dir, child)));
    else if (child !== '.expired.jsonl') found.push(child);
  }
  return found;
}

/** Whether a final file is whole: JSONL lines parse and match the sidecar; CSV parses; XLSX opens. */
async function isWhole(dir: string, relative: string, data: Buffer): Promise<boolean> {
  try {
    if (relative.endsWith(metadataSuffix)) JSON.parse(data.toString('utf8'));
    else if (relative.startsWith('results/') && relative.endsWith('.jsonl')) {
      const meta = JSON.parse(await readFile(path.join(dir, `${relative}${metadataSuffix}`), 'utf8')) as { rows: number; bytes: number };
      const lines = data.toString('utf8').split('\n').filter(Boolean);
      if (lines.length !== meta.rows || data.length !== meta.bytes) return false;
      for (const line of lines) JSON.parse(line);
    } else if (relative.endsWith('.csv')) {
      if (data.length > 0 && data[data.length - 1] !== 0x0a) return false;
      parse(data, { bom: true });
    } else if (relative.endsWith('.xlsx')) {
      const zip = await JSZip.loadAsync(data);
      if (zip.file('xl/workbook.xml') === null) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** What the sandbox holds now. With `read`, every final file is opened as a tool would (repairing a temporary second link first). */
async function census(root: string, read: boolean): Promise<Census> {
  const result: Census = { finalFiles: 0, torn: [], unreadable: [], twoLinks: [], temporary: [], sidecarsWithoutData: [], dataWithoutSidecar: [] };
  for (const id of await listConversations(root)) {
    const dir = conversationDir(root, id);
    const files = await walk(dir);
    const all = new Set(files);
    for (const relative of files) {
      const name = path.posix.basename(relative);
      const where = `${id}/${relative}`;
      if (isPublishTempName(name)) {
        result.temporary.push(where);
        continue;
      }
      if (relative.endsWith(metadataSuffix) && !all.has(relative.slice(0, -metadataSuffix.length))) {
        result.sidecarsWithoutData.push(where);
        continue;
      }
      if (relative.startsWith('results/') && !relative.endsWith(metadataSuffix) && !all.has(`${relative}${metadataSuffix}`))
        result.dataWithoutSidecar.push(where);
      result.finalFiles += 1;
      if ((await lstat(path.join(dir, relative))).nlink > 1) result.twoLinks.push(where);
      if (!read) continue;
      try {
        // listConversations names each conversation "<principal>/<conversation>".
        const [principal = '', conversation = ''] = id.split('/');
        const { data } = await new ConversationSandbox(root, conversation, principal).readFile(relative);
        if (!(await isWhole(dir, relative, data))) result.torn.push(`${id}/${relative}`);
      } catch (error) {
        result.unreadable.push(`${id}/${relative}: ${(error as { code?: string }).code ?? String(error)}`);
      }
    }
  }
  return result;
}

export default async function crashBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-crash-bench-'));
  const root = path.join(dir, 'sandbox');
  const config = path.join(dir, 'config.json');
  await writeFile(config, JSON.stringify({ sandbox: { root }, data: { dir: path.join(dir, 'data') }, log: { level: 'silent' }, demo: { rows: 20_000 } }));
  const counts = { spills: 0, exports: 0 };
  // Every distinct leftover the kills produced, seen right after each kill (before the next start's recovery).
  const leftBehind = Object.fromEntries(leftoverKinds.map((kind) => [kind, new Set<string>()])) as Record<(typeof leftoverKinds)[number], Set<string>>;
  const started = performance.now();
  try {
    for (let round = 0; round < rounds; round += 1) {
      const server = await startServer(config);
      const stop = new AbortController();
      setMaxListeners(1000, stop.signal);
      const workers = Array.from({ length: clients }, (_, index) => work(server.url, index, counts, stop.signal));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * killWindowMs));
      server.child.kill('SIGKILL');
      stop.abort();
      await Promise.all(workers);
      await new Promise((resolve) =>
        server.child.exitCode !== null || server.child.signalCode !== null ? resolve(undefined) : server.child.once('exit', resolve),
      );
      const after = await census(root, false);
      for (const kind of leftoverKinds) for (const where of after[kind]) leftBehind[kind].add(where);
      if ((round + 1) % 20 === 0) console.error(`crash bench: ${round + 1}/${rounds} kills`);
    }
    // The restart, as `spillway serve` starts (its start-up recovery, awaited here so the figures do not
    // depend on how far it got), then every final file read as a tool reads it, then one sweep.
    const killed = await census(root, false);
    const recovered = await recoverSandbox({ root, graceMs });
    const restarted = await census(root, true);
    const later = new Date(Date.now() + graceMs + 60_000);
    const sweep = await sweepSandbox({ root, olderThanMs: 7 * 86_400_000, tempGraceMs: graceMs, now: () => later });
    const swept = await census(root, true);
    const seconds = (performance.now() - started) / 1000;

    console.log(`${rounds} SIGKILLs of spillway serve, ${clients} HTTP clients each (query_sql → export_table csv/xlsx), ${seconds.toFixed(0)} s`);
    console.log(`calls finished before the kills: ${counts.spills} spills, ${counts.exports} exports; final files checked: ${swept.finalFiles}`);
    console.log('');
    console.log('| | left by the kills (distinct, before recovery) | after the last kill | after restart (recovery + reads) | after one sweep | goal |');
    console.log('|---|---|---|---|---|---|');
    console.log(`| torn files under a final name | | | ${restarted.torn.length} | ${swept.torn.length} | 0 |`);
    console.log(`| files a read refuses or cannot open | | | ${restarted.unreadable.length} | ${swept.unreadable.length} | 0 |`);
    const row = (label: string, kind: (typeof leftoverKinds)[number], goal: string) =>
      console.log(`| ${label} | ${leftBehind[kind].size} | ${killed[kind].length} | ${restarted[kind].length} | ${swept[kind].length} | ${goal} |`);
    row('published files with a second link', 'twoLinks', '0 after restart');
    row('temporary files', 'temporary', '0 after a sweep');
    row('sidecars without data', 'sidecarsWithoutData', '0 after a sweep');
    row('spills without a sidecar', 'dataWithoutSidecar', '0');
    console.log('');
    console.log(`start-up recovery: ${recovered.linksRepaired} second links repaired, ${recovered.removed.files} leftovers past the grace period removed`);
    console.log(
      `sweep: ${sweep.leftovers.removed.files} leftovers removed (${sweep.leftovers.removed.bytes} bytes), ${sweep.leftovers.linksRepaired} second links repaired`,
    );
    for (const line of [...restarted.torn, ...restarted.unreadable, ...swept.torn, ...swept.unreadable].slice(0, 20)) console.log(`  ${line}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
