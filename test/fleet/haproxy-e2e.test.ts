import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
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
import { Conversation, Fleet, fleetSkipReason, metricsOf, spillwayBin, startHaproxy, startReplica, textOf, type Replica } from './fleet-harness.js';

/**
 * The fleet end to end (issue 16): Redis, three real `spillway serve` processes on one
 * sandbox folder, HAProxy in front with the affinity rules of deploy/haproxy/haproxy.cfg,
 * and twenty SDK clients that each drive one conversation through HAProxy: a spill, a CSV,
 * an XLSX and a DOCX export of it, a read and a second spill. One replica is killed
 * (SIGKILL) while the others export; its clients open a new session with the same
 * Mcp-Conversation-Id and finish on the survivors. Then two `spillway cleanup` processes
 * and the replicas' own schedules sweep at once: exactly one sweep runs, no output goes.
 * Each replica's /metrics counted exactly the calls, spills and file jobs the test routed to it.
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
/** Excel's day 0 (30 December 1899) counted in days before 1970-01-01. */
const excelEpochDays = 25_569;

type Row = Record<string, string | number | null>;

function replicaConfig(options: { dir: string; name: string; sandboxRoot: string; redisUrl: string; cron: string }): string {
  return JSON.stringify({
    sandbox: { root: options.sandboxRoot },
    // Each replica its own data.dir (records.jsonl, demo database), as docs/deploy.md says.
    data: { dir: path.join(options.dir, `data-${options.name}`) },
    server: { host: '127.0.0.1', port: 0 },
    coordination: { redis: { url: options.redisUrl, keyPrefix } },
    retention: { cron: options.cron },
    demo: { rows: conversations * rowsPerConversation + 500 },
    log: { level: 'warn' },
  });
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
  'a fleet behind HAProxy: twenty conversations spill and export through three replicas, one replica is killed, every file is whole and unique, one sweep runs, /metrics counted every call',
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

    const replicas: Replica[] = [];
    for (const name of ['r1', 'r2', 'r3']) {
      const configFile = path.join(dir, `${name}.json`);
      await writeFile(configFile, replicaConfig({ dir, name, sandboxRoot, redisUrl: redis.url, cron: neverCron }));
      replicas.push(await startReplica(t, name, configFile));
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

    // 3. Every conversation exports its spill as CSV, XLSX and DOCX, reads the CSV back and
    // spills again (the new number follows the first whichever replica writes it). The
    // victim's clients start once it is dead: a call in flight on a killed replica may or
    // may not have written its file, and no client can know which.
    await Promise.all(
      clients.map(async (client, i) => {
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
    );
    await killed;
    for (const client of clients) {
      const expected = client.sessions[0] === victim ? 2 : 1;
      assert.equal(client.sessions.length, expected, `${client.id}: ${expected === 2 ? 'one new session after the kill' : 'its one session'}`);
      assert.notEqual(client.replica, victim);
    }

    // 4. The files on the shared volume: per conversation two spills with distinct numbers,
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

    // 5. /metrics: each survivor counted exactly the calls, spills and file jobs routed to it.
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
    }

    // 6. Sweeps at once. Every export is made old (a sweep that touched outputs/ would take
    // them), and an old conversation's spills are there to expire.
    const old = new Date(Date.now() - 30 * dayMs);
    for (const file of outputs.keys()) {
      outputs.set(file, await readFile(file));
      await utimes(file, old, old);
    }
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
    const cleanup = (name: string) => {
      const child = spawnChild(t, process.execPath, [spillwayBin, 'cleanup', '--json', '--config', survivors[0]!.configFile], {
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
      await writeFile(replica.configFile, replicaConfig({ dir, name: replica.name, sandboxRoot, redisUrl: redis.url, cron: everySecondCron }));
    }
    const locked = new Map<Replica, number>();
    for (const replica of survivors) {
      await waitFor(
        async () => sample(await metricsOf(replica), 'spillway_sweeps_total', { outcome: 'locked' }) >= 1,
        `${replica.name}: a scheduled sweep to find the lock held`,
      );
      await writeFile(replica.configFile, replicaConfig({ dir, name: replica.name, sandboxRoot, redisUrl: redis.url, cron: neverCron }));
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

    // The held sweep goes on: it alone ran, removed exactly the old spills, and no output.
    first.child.kill('SIGCONT');
    const ran = await first.done;
    assert.equal(ran.code, 0, ran.err);
    const report = JSON.parse(ran.out) as { deleted: { files: number }; conversations: number };
    assert.equal(report.deleted.files, expired, ran.out);
    assert.equal(report.conversations, conversations + 1);
    assert.equal(await admin.exists(keyPrefix + sweepLockKey), 0, 'the lock is released');
    for (const [file, bytes] of outputs) assert.equal(sha256(await readFile(file)), sha256(bytes), `${file} is kept as it was`);
    assert.deepEqual(await readdir(path.join(archive.dir, 'results')), []);
    for (const replica of survivors) {
      const metrics = await metricsOf(replica);
      assert.equal(sample(metrics, 'spillway_sweeps_total', { outcome: 'ok' }), 0, `${replica.name}: no sweep of its own ran`);
      assert.equal(sample(metrics, 'spillway_sweeps_total', { outcome: 'locked' }), locked.get(replica), `${replica.name}: no sweep since`);
    }
  },
);
