import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { parse } from 'csv-parse/sync';
import { Redis } from 'ioredis';
import JSZip from 'jszip';
import XLSX from 'xlsx';
import { sweepLockKey } from '../../src/retention/lease-sweep-lock.js';
import { SandboxRoot } from '../../src/sandbox/sandbox-root.js';
import { childExit, spawnChild } from '../helpers/child-process.js';
import { sample } from '../helpers/prometheus-text.js';
import { startRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  Conversation,
  Fleet,
  fleetSkipReason,
  metricsOf,
  spillwayBin,
  startHaproxy,
  startReplica,
  startWorker,
  textOf,
  whenStopped,
  type Replica,
  type Worker,
} from './fleet-harness.js';

/**
 * The fleet end to end (issue 16): Redis, three real `spillway serve` processes and two
 * `spillway worker` processes on one sandbox folder, HAProxy in front with the affinity
 * rules of deploy/haproxy/haproxy.cfg, and twenty SDK clients that each drive one
 * conversation through HAProxy: a spill, a CSV, an XLSX and a DOCX export of it (built by
 * the workers: coordination.jobs.onReplicas is false), a read and a second spill. One
 * replica is killed (SIGKILL) while the others export; its clients open a new session with
 * the same Mcp-Conversation-Id and finish on the survivors. One worker is killed while it
 * writes a big export; the other takes the job again and the file exists once. Then two
 * `spillway cleanup` processes and the replicas' own schedules sweep at once: exactly one
 * sweep runs, no output goes. Each replica's /metrics counted exactly the calls, spills and
 * file jobs the test routed to it.
 */

const skip = fleetSkipReason();
if (skip !== undefined) console.log(`# skipping the HAProxy fleet end-to-end test: ${skip}`);

const conversations = 20;
const rowsPerConversation = 150;
const keyPrefix = 'e2e:';
/** A schedule that never fires during the test (1 January, midnight); the test turns the sweeps on itself. */
const neverCron = '0 0 0 1 1 *';
const everySecondCron = '* * * * * *';
const tools = ['query_sql', 'export_table', 'build_document', 'read_file'];
const fileKinds = ['csv', 'xlsx', 'docx'];
const dayMs = 86_400_000;
/** A job whose worker died is taken again after this (coordination.jobs.lockMs). */
const jobLockMs = 2000;
/** Rows of the export whose worker is killed: enough that it is still being written when the test sees its temporary file. */
const bigRows = 60_000;
const bigSql = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${bigRows}) SELECT i AS id, 'row ' || i AS label, i * 0.25 AS amount FROM n`;
/** Excel's day 0 (30 December 1899) counted in days before 1970-01-01. */
const excelEpochDays = 25_569;

type Row = Record<string, string | number | null>;

interface FleetPlace {
  dir: string;
  sandboxRoot: string;
  redisUrl: string;
}

/** Replicas only serve: `spillway worker` nodes build every file (coordination.jobs.onReplicas false). */
function replicaConfig(place: FleetPlace, name: string, cron: string): string {
  return JSON.stringify({
    sandbox: { root: place.sandboxRoot },
    // Each replica its own data.dir (records.jsonl, demo database), as docs/deploy.md says.
    data: { dir: path.join(place.dir, `data-${name}`) },
    // Sixty-one file jobs share two worker threads: the default 30 s wait for a worker only bounds a hang.
    server: { host: '127.0.0.1', port: 0, queueWaitMs: 240_000 },
    coordination: { redis: { url: place.redisUrl, keyPrefix }, jobs: { onReplicas: false, lockMs: jobLockMs } },
    retention: { cron },
    demo: { rows: conversations * rowsPerConversation + 500 },
    log: { level: 'warn' },
  });
}

/** A worker node: one thread, so it holds one job at a time. */
function workerConfig(place: FleetPlace, name: string): string {
  return JSON.stringify({
    sandbox: { root: place.sandboxRoot },
    data: { dir: path.join(place.dir, `data-${name}`) },
    coordination: { redis: { url: place.redisUrl, keyPrefix }, jobs: { lockMs: jobLockMs } },
    workers: { poolSize: 1 },
    log: { level: 'warn' },
  });
}

/**
 * `spillway cleanup`'s: temporary files older than a second are leftovers (the killed
 * worker's); the lease outlives however long the test holds this sweep stopped.
 */
function cleanupConfig(place: FleetPlace): string {
  return JSON.stringify({
    sandbox: { root: place.sandboxRoot },
    data: { dir: path.join(place.dir, 'data-cleanup') },
    coordination: { redis: { url: place.redisUrl, keyPrefix }, sweepLeaseMs: 3_600_000 },
    retention: { tempGraceMs: 1000 },
    log: { level: 'warn' },
  });
}

/** The big export's rows, as the query that spills them makes them. */
function bigRow(i: number): Row {
  return { id: i, label: `row ${i}`, amount: i * 0.25 };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Values as a CSV cell shows them: text as is, numbers in JavaScript's notation, null empty. */
function cellText(value: string | number | null): string {
  return value === null ? '' : String(value);
}

/**
 * A cell's value as the spill wrote it: a date cell (a day serial number, no time zone) as
 * the ISO instant it was exported from, to the second.
 */
function sheetValue(cell: string | number | null, spilled: string | number | null): string | number | null {
  if (typeof cell !== 'number' || typeof spilled !== 'string') return cell;
  return new Date(Math.round(((cell - excelEpochDays) * dayMs) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

test(
  'a fleet behind HAProxy (slow: seven processes: HAProxy, Redis, three replicas, two workers): twenty conversations spill and export through three replicas and two workers, a replica and a worker are killed, every file is whole and unique, one sweep runs, /metrics counted every call',
  { skip },
  async (t) => {
    const dir = await tempDir(t);
    const sandboxRoot = path.join(dir, 'sandbox');
    await mkdir(sandboxRoot);
    const redis = await startRedis(t);
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    // Redis stops with the test; this client's reconnect attempts then are no failure.
    admin.on('error', () => undefined);
    t.after(() => admin.disconnect());

    const place: FleetPlace = { dir, sandboxRoot, redisUrl: redis.url };

    const replicas: Replica[] = [];
    for (const name of ['r1', 'r2', 'r3']) {
      const configFile = path.join(dir, `${name}.json`);
      await writeFile(configFile, replicaConfig(place, name, neverCron));
      replicas.push(await startReplica(t, name, configFile));
    }
    const workers: Worker[] = [];
    for (const name of ['w1', 'w2']) {
      const configFile = path.join(dir, `${name}.json`);
      await writeFile(configFile, workerConfig(place, name));
      const worker = await startWorker(t, name, configFile);
      assert.equal(worker.threads, 1);
      workers.push(worker);
    }
    const fleet = new Fleet(replicas);
    const front = await startHaproxy(t, dir, replicas);
    const sandbox = await SandboxRoot.open(sandboxRoot);

    const mcpUrl = new URL('/mcp', front);
    const clients = Array.from({ length: conversations }, (_, i) => new Conversation(`fleet-conv-${String(i + 1).padStart(2, '0')}`, mcpUrl, fleet));
    t.after(() => Promise.all(clients.map((client) => client.close())));
    await Promise.all(clients.map((client) => client.connect()));
    // Round robin spreads the sessions: every replica holds some.
    for (const replica of replicas)
      assert.ok(
        clients.some((client) => client.replica === replica),
        `${replica.name} holds a session`,
      );

    // 1. Every conversation spills a table.
    const sql = (i: number) => `SELECT * FROM transactions WHERE id % ${conversations} = ${i} ORDER BY id LIMIT ${rowsPerConversation}`;
    const firstSpills = await Promise.all(
      clients.map(async (client, i) => {
        const result = await client.call('query_sql', { sql: sql(i) });
        assert.equal(result.isError, false, textOf(result));
        const spill = result._meta?.['spillway/spill'] as { path: string; rows: number } | undefined;
        assert.ok(spill !== undefined, `${client.id}: the result was spilled`);
        assert.equal(spill.rows, rowsPerConversation);
        return spill.path;
      }),
    );

    // 2. The replica holding the most sessions is killed while the others' conversations export.
    const held = (replica: Replica) => clients.filter((client) => client.replica === replica).length;
    const victim = replicas.reduce((most, replica) => (held(replica) > held(most) ? replica : most));
    const victims = clients.filter((client) => client.replica === victim);
    const survivors = replicas.filter((replica) => replica !== victim);
    // What the victim counted before it dies: exactly the spills the test routed to it.
    const victimMetrics = await metricsOf(victim);
    assert.equal(sample(victimMetrics, 'spillway_tool_calls_total', { tool: 'query_sql', outcome: 'ok' }), victims.length);
    assert.equal(sample(victimMetrics, 'spillway_spill_files_total'), victims.length);
    const killed = (async () => {
      victim.alive = false;
      const exited = childExit(victim.child);
      victim.child.kill('SIGKILL');
      await exited;
    })();

    // 3. Meanwhile one more conversation exports a big table, and the worker building it is
    // killed (SIGKILL) while it writes: the job is taken again by the other worker once its
    // lock (coordination.jobs.lockMs) runs out, and the call finishes with the file once.
    const big = new Conversation('fleet-big', mcpUrl, fleet);
    t.after(() => big.close());
    const bigOutputs = path.join(sandbox.conversation(big.id).dir, 'outputs');
    const bigExport = async () => {
      await killed;
      await big.connect();
      const spilled = await big.call('query_sql', { sql: bigSql });
      assert.equal(spilled.isError, false, textOf(spilled));
      const source = (spilled._meta?.['spillway/spill'] as { path: string }).path;
      const progress: Progress[] = [];
      const call = big.call('export_table', { source, format: 'xlsx', filename: 'big.xlsx' }, { onprogress: (report) => progress.push(report) });
      call.catch(() => undefined);
      // The worker writing it is named by its temporary file: ".big.xlsx.<pid>.<random>.tmp".
      let holder: Worker | undefined;
      await waitFor(
        async () => {
          const names = await readdir(bigOutputs).catch(() => [] as string[]);
          holder = workers.find((worker) => names.some((name) => name.startsWith(`.big.xlsx.${worker.child.pid}.`)));
          return holder !== undefined;
        },
        'a worker to start writing big.xlsx',
        24_000,
      );
      const dying = holder as Worker;
      dying.child.kill('SIGSTOP');
      await whenStopped(dying.child, dying.name);
      assert.ok(!(await readdir(bigOutputs)).includes('big.xlsx'), `${dying.name} was stopped before it published big.xlsx`);
      const exited = childExit(dying.child);
      dying.child.kill('SIGKILL');
      await exited;
      const result = await call;
      assert.equal(result.isError, false, textOf(result));
      const output = (result.structuredContent as { result: { path: string; rows: number } }).result;
      assert.deepEqual([output.path, output.rows], ['outputs/big.xlsx', bigRows]);
      assert.ok(
        progress.some((report) => /\brows?\b/.test(report.message ?? '')),
        `the call reported progress on the rows while its job ran: ${JSON.stringify(progress)}`,
      );
      return dying;
    };

    // 4. Every conversation exports its spill as CSV, XLSX and DOCX, reads the CSV back and
    // spills again (the new number follows the first whichever replica writes it). The
    // victim's clients start once it is dead: a call in flight on a killed replica may or
    // may not have written its file, and no client can know which.
    const [deadWorker] = await Promise.all([
      bigExport(),
      ...clients.map(async (client, i) => {
        if (client.replica === victim) await killed;
        const source = firstSpills[i] as string;
        for (const [format, args] of [
          ['csv', { format: 'csv', bom: false, formulaGuard: false }],
          ['xlsx', { format: 'xlsx' }],
        ] as const) {
          const result = await client.call('export_table', { source, filename: `${client.id}.${format}`, ...args });
          assert.equal(result.isError, false, `${client.id}: ${textOf(result)}`);
          const output = (result.structuredContent as { result: { path: string; rows: number } }).result;
          assert.equal(output.path, `outputs/${client.id}.${format}`);
          assert.equal(output.rows, rowsPerConversation);
        }
        const document = await client.call('build_document', {
          format: 'docx',
          filename: `${client.id}.docx`,
          spec: { title: `Transactions of ${client.id}`, blocks: [{ type: 'table', source }] },
        });
        assert.equal(document.isError, false, `${client.id}: ${textOf(document)}`);
        assert.equal((document.structuredContent as { result: { path: string } }).result.path, `outputs/${client.id}.docx`);
        const read = await client.call('read_file', { path: `outputs/${client.id}.csv`, limit: 5 });
        assert.equal(read.isError, false, `${client.id}: ${textOf(read)}`);
        assert.match(textOf(read), /\bid\b.*\bts\b/, `${client.id}: the CSV header`);
        const again = await client.call('query_sql', { sql: sql(i) });
        const spill = again._meta?.['spillway/spill'] as { path: string } | undefined;
        assert.ok(spill !== undefined);
        assert.notEqual(spill.path, source, `${client.id}: a new spill number`);
      }),
    ]);
    await killed;
    const survivingWorkers = workers.filter((worker) => worker !== deadWorker);
    for (const client of clients) {
      const expected = client.sessions[0] === victim ? 2 : 1;
      assert.equal(client.sessions.length, expected, `${client.id}: ${expected === 2 ? 'one new session after the kill' : 'its one session'}`);
      assert.notEqual(client.replica, victim);
    }

    // 5. The files on the shared volume: per conversation two spills with distinct numbers,
    // each export once under its own name (never a "name (2).csv"), every row in each.
    const outputs = new Map<string, Buffer>();
    for (const [i, client] of clients.entries()) {
      const folder = sandbox.conversation(client.id).dir;
      const spillFiles = (await readdir(path.join(folder, 'results'))).filter((name) => name.endsWith('.jsonl')).sort();
      assert.equal(spillFiles.length, 2, `${client.id}: two spills (${spillFiles.join(', ')})`);
      assert.equal(new Set(spillFiles.map((name) => name.slice(0, 4))).size, 2, `${client.id}: distinct spill numbers`);
      const spilled = (await readFile(path.join(folder, firstSpills[i] as string), 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Row);
      assert.equal(spilled.length, rowsPerConversation, `${client.id}: the first spill is whole`);
      const columns = Object.keys(spilled[0] as Row);

      assert.deepEqual(
        (await readdir(path.join(folder, 'outputs'))).sort(),
        ['csv', 'docx', 'xlsx'].map((format) => `${client.id}.${format}`),
        `${client.id}: each export once, nothing else in outputs/`,
      );
      for (const format of fileKinds) outputs.set(path.join(folder, 'outputs', `${client.id}.${format}`), Buffer.alloc(0));

      const csvRows = parse(await readFile(path.join(folder, 'outputs', `${client.id}.csv`)), { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        csvRows,
        spilled.map((row) => Object.fromEntries(columns.map((column) => [column, cellText(row[column] ?? null)]))),
        `${client.id}: the CSV holds the spilled rows`,
      );

      const workbook = XLSX.read(await readFile(path.join(folder, 'outputs', `${client.id}.xlsx`)), { type: 'buffer' });
      const sheet = workbook.Sheets[workbook.SheetNames[0] as string] as XLSX.WorkSheet;
      const xlsxRows = XLSX.utils.sheet_to_json<Row>(sheet, { defval: null, raw: true });
      assert.deepEqual(
        xlsxRows.map((row, r) => Object.fromEntries(columns.map((column) => [column, sheetValue(row[column] ?? null, spilled[r]?.[column] ?? null)]))),
        spilled,
        `${client.id}: the XLSX holds the spilled rows`,
      );

      const docx = await JSZip.loadAsync(await readFile(path.join(folder, 'outputs', `${client.id}.docx`)));
      const body = (await docx.file('word/document.xml')?.async('string')) ?? '';
      assert.equal(body.match(/<w:tr[ >]/g)?.length, rowsPerConversation + 1, `${client.id}: the DOCX table has a header and every row`);
    }
    // The big export: once, whole, readable; beside it only the killed worker's temporary file.
    const bigNames = await readdir(bigOutputs);
    assert.deepEqual(
      bigNames.filter((name) => !name.startsWith('.')),
      ['big.xlsx'],
      'big.xlsx exists once',
    );
    const deadTemps = bigNames.filter((name) => name.startsWith('.'));
    assert.ok(deadTemps.length > 0 && deadTemps.every((name) => name.startsWith(`.big.xlsx.${deadWorker.child.pid}.`)), `leftovers: ${deadTemps.join(', ')}`);
    const bigFile = path.join(bigOutputs, 'big.xlsx');
    const bigBook = XLSX.read(await readFile(bigFile), { type: 'buffer' });
    const bigSheet = XLSX.utils.sheet_to_json<Row>(bigBook.Sheets[bigBook.SheetNames[0] as string] as XLSX.WorkSheet, { defval: null, raw: true });
    assert.equal(bigSheet.length, bigRows, 'big.xlsx holds every row');
    for (const at of [0, bigRows / 2, bigRows - 1]) assert.deepEqual(bigSheet[at], bigRow(at + 1), `big.xlsx row ${at + 1}`);
    outputs.set(bigFile, Buffer.alloc(0));

    // 6. /metrics: each survivor counted exactly the calls, spills and file jobs routed to it.
    for (const replica of survivors) {
      const metrics = await metricsOf(replica);
      for (const tool of tools) {
        const ok = fleet.count(replica, (call) => call.tool === tool && call.ok);
        assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool, outcome: 'ok' }), ok, `${replica.name}: ${tool} calls`);
        assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool, outcome: 'error' }), 0, `${replica.name}: failed ${tool} calls`);
      }
      const spills = fleet.calls.filter((call) => call.replica === replica.name && call.spill !== undefined);
      assert.ok(spills.length > 0);
      assert.equal(sample(metrics, 'spillway_spill_files_total'), spills.length, `${replica.name}: spill files`);
      let bytes = 0;
      for (const call of spills) bytes += (await stat(path.join(sandbox.conversation(call.conversation).dir, call.spill as string))).size;
      assert.equal(sample(metrics, 'spillway_spill_bytes_total'), bytes, `${replica.name}: spill bytes`);
      const exports = fleet.count(replica, (call) => call.tool === 'export_table' || call.tool === 'build_document');
      const jobs = fileKinds.reduce((sum, kind) => sum + sample(metrics, 'spillway_file_jobs_total', { kind, outcome: 'ok' }), 0);
      assert.equal(jobs, exports, `${replica.name}: file jobs`);
      assert.equal(sample(metrics, 'spillway_file_jobs_queued'), 0, `${replica.name}: no job left queued`);
      assert.equal(sample(metrics, 'spillway_file_jobs_running'), 0, `${replica.name}: no job left running`);
    }

    // 7. Sweeps at once. Every export is made old (a sweep that touched outputs/ would take
    // them), and an old conversation's spills are there to expire.
    const old = new Date(Date.now() - 30 * dayMs);
    for (const file of outputs.keys()) {
      outputs.set(file, await readFile(file));
      await utimes(file, old, old);
    }
    for (const name of deadTemps) await utimes(path.join(bigOutputs, name), old, old);
    const archive = sandbox.conversation('fleet-archive');
    await archive.ensure();
    const expired = 200;
    for (let n = 1; n <= expired; n += 1) {
      const file = path.join(archive.dir, 'results', `${String(n).padStart(4, '0')}-query_sql.jsonl`);
      await writeFile(file, '{"old":true}\n');
      await utimes(file, old, old);
    }

    // The first cleanup takes the fleet's lock and is held there: Redis refuses writes for a
    // moment, the process is stopped while its SET waits, then Redis runs the SET. So it
    // holds the lock, deterministically, until the test lets it go on.
    const cleanupFile = path.join(dir, 'cleanup.json');
    await writeFile(cleanupFile, cleanupConfig(place));
    const cleanup = (name: string) => {
      const child = spawnChild(t, process.execPath, [spillwayBin, 'cleanup', '--json', '--config', cleanupFile], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
        child.once('exit', (code) => resolve({ code, out, err: `${name}: ${err}` })),
      );
      return { child, done };
    };
    await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    const first = cleanup('first cleanup');
    let exitedEarly = false;
    void first.done.then(() => (exitedEarly = true));
    await waitFor(async () => {
      if (exitedEarly) throw new Error(`the first cleanup exited before taking the lock: ${(await first.done).err}`);
      const list = (await admin.call('CLIENT', 'LIST')) as string;
      return list.split('\n').some((line) => / flags=b /.test(line) && / cmd=set /.test(line));
    }, "the first cleanup's SET of the sweep lock to wait on the paused Redis");
    first.child.kill('SIGSTOP');
    await admin.call('CLIENT', 'UNPAUSE');
    await waitFor(async () => (await admin.exists(keyPrefix + sweepLockKey)) === 1, 'the first cleanup to hold the sweep lock');

    // A second cleanup is told another sweep runs (exit 75) ...
    const second = await cleanup('second cleanup').done;
    assert.equal(second.code, 75, second.err);
    assert.match(second.err, /Another retention sweep is running/);
    // ... and so is every surviving replica's own schedule, turned to every second for this.
    for (const replica of survivors) {
      await writeFile(replica.configFile, replicaConfig(place, replica.name, everySecondCron));
    }
    const locked = new Map<Replica, number>();
    for (const replica of survivors) {
      await waitFor(
        async () => sample(await metricsOf(replica), 'spillway_sweeps_total', { outcome: 'locked' }) >= 1,
        `${replica.name}: a scheduled sweep to find the lock held`,
      );
      await writeFile(replica.configFile, replicaConfig(place, replica.name, neverCron));
    }
    for (const replica of survivors) {
      await waitFor(async () => {
        const health = (await (await fetch(new URL('/healthz', replica.base))).json()) as { retention: { schedule: string; running: boolean } };
        return health.retention.schedule === neverCron && !health.retention.running;
      }, `${replica.name}: the schedule back to never, no sweep running`);
      const metrics = await metricsOf(replica);
      locked.set(replica, sample(metrics, 'spillway_sweeps_total', { outcome: 'locked' }));
      assert.equal(sample(metrics, 'spillway_sweeps_total', { outcome: 'ok' }), 0, `${replica.name}: no sweep of its own ran`);
    }

    // The held sweep goes on: it alone ran, removed exactly the old spills and the killed
    // worker's leftover, and no output.
    first.child.kill('SIGCONT');
    const ran = await first.done;
    assert.equal(ran.code, 0, ran.err);
    const report = JSON.parse(ran.out) as { deleted: { files: number }; conversations: number; leftovers: { removed: { files: number } } };
    assert.equal(report.deleted.files, expired, ran.out);
    assert.equal(report.leftovers.removed.files, deadTemps.length, ran.out);
    assert.equal(report.conversations, conversations + 2);
    assert.deepEqual(await readdir(bigOutputs), ['big.xlsx']);
    assert.equal(await admin.exists(keyPrefix + sweepLockKey), 0, 'the lock is released');
    for (const [file, bytes] of outputs) assert.equal(sha256(await readFile(file)), sha256(bytes), `${file} is kept as it was`);
    assert.deepEqual(await readdir(path.join(archive.dir, 'results')), []);
    for (const replica of survivors) {
      const metrics = await metricsOf(replica);
      assert.equal(sample(metrics, 'spillway_sweeps_total', { outcome: 'ok' }), 0, `${replica.name}: no sweep of its own ran`);
      assert.equal(sample(metrics, 'spillway_sweeps_total', { outcome: 'locked' }), locked.get(replica), `${replica.name}: no sweep since`);
    }

    // The surviving worker stops cleanly when asked (SIGTERM: exit 0).
    for (const worker of survivingWorkers) {
      const stopped = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
      worker.child.kill('SIGTERM');
      assert.equal(await stopped, 0, `${worker.name} exits 0 on SIGTERM`);
    }
  },
);
