import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../src/config/package-root.js';
import { childExit, spawnChild } from '../helpers/child-process.js';
import { sample, scrape } from '../helpers/prometheus-text.js';
import { freePort, redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The fleet end to end: Redis, three real `spillway serve` processes on one sandbox folder,
 * HAProxy in front with the affinity rules of deploy/haproxy/haproxy.cfg, and SDK clients
 * that each drive one conversation through HAProxy. One replica is killed (SIGKILL) between
 * the spills and the exports; its clients open a new session with the same
 * Mcp-Conversation-Id and finish on the survivors.
 */

function haproxyMissing(): string | undefined {
  const found = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return found.error === undefined && found.status === 0 ? undefined : 'haproxy is not installed (.ci/run installs the Debian package haproxy)';
}

const skip = haproxyMissing() ?? redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the HAProxy fleet end-to-end test: ${skip}`);

const bin = path.join(packageRoot, 'bin', 'spillway.js');
const conversations = 8;
const rowsPerConversation = 150;

interface Replica {
  name: string;
  child: ChildProcess;
  base: URL;
}

/** Starts `spillway serve` with this config and waits for the line with its URL. */
async function startReplica(t: TestContext, name: string, configFile: string): Promise<Replica> {
  const child = spawnChild(t, process.execPath, [bin, 'serve', '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<URL>((resolve, reject) => {
    lines.on('line', (line) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(line);
      if (match) resolve(new URL(match[1] as string));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before printing its URL:\n${stderr}`)));
  });
  return { name, child, base: url };
}

/** The deploy file with this test's addresses: same options, same affinity rules. */
async function haproxyConfig(dir: string, port: number, replicas: readonly Replica[]): Promise<string> {
  const template = await readFile(path.join(packageRoot, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8');
  const lines = template.split('\n');
  assert.ok(lines.some((line) => line.trim() === 'bind :8080'));
  const body = lines
    .filter((line) => !/^\s+server /.test(line))
    .map((line) => (line.trim() === 'bind :8080' ? `    bind 127.0.0.1:${port}` : line))
    .join('\n')
    .trimEnd();
  // Replicas on a loopback address accept only their own address as Host (the DNS-rebinding
  // guard); replicas of a real fleet listen on a private address, where that guard is off.
  // Here each server is named by its address and HAProxy sends that name as Host.
  const servers = [
    '    http-send-name-header Host',
    ...replicas.map((replica) => `    server 127.0.0.1:${replica.base.port} 127.0.0.1:${replica.base.port}`),
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  await writeFile(file, `${body}\n${servers}\n`);
  return file;
}

function textOf(result: CallToolResult): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

/** One conversation's client: reconnects (a new session, same conversation) when asked. */
class Conversation {
  client: Client | undefined;
  sessions: string[] = [];
  constructor(
    readonly id: string,
    readonly url: URL,
  ) {}

  async connect(): Promise<void> {
    const transport = new StreamableHTTPClientTransport(this.url, { requestInit: { headers: { 'Mcp-Conversation-Id': this.id } } });
    const client = new Client({ name: `fleet-${this.id}`, version: '1' });
    await client.connect(transport);
    this.client = client;
    this.sessions.push(transport.sessionId ?? '');
  }

  /** A call; when the session's replica is gone, a new session (on a survivor) and the call again. */
  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    try {
      return (await this.client!.callTool({ name, arguments: args })) as CallToolResult;
    } catch (error) {
      // The session was on the killed replica: HAProxy sends the request to a survivor,
      // which does not know the session (404), or the connection broke.
      await this.client?.close().catch(() => undefined);
      await this.connect();
      return (await this.client!.callTool({ name, arguments: args })) as CallToolResult;
    }
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
  }
}

/** Every file below `dir`, as paths relative to it. */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? walk(dir, path.join(prefix, entry.name)) : Promise.resolve([path.join(prefix, entry.name)]))),
  );
  return nested.flat();
}

async function sessionsOn(replica: Replica): Promise<number> {
  return sample(await scrape(new URL('/metrics', replica.base).href), 'spillway_sessions');
}

async function callsOn(replica: Replica, tool: string): Promise<number> {
  return sample(await scrape(new URL('/metrics', replica.base).href), 'spillway_tool_calls_total', { tool, outcome: 'ok' });
}

test(
  'a fleet behind HAProxy: eight conversations spill and export through three replicas, one replica is killed, every conversation finishes intact',
  { skip },
  async (t) => {
    const dir = await tempDir(t);
    const sandboxRoot = path.join(dir, 'sandbox');
    await mkdir(sandboxRoot);
    const redis = await startRedis(t);

    const replicas: Replica[] = [];
    for (const name of ['r1', 'r2', 'r3']) {
      const configFile = path.join(dir, `${name}.json`);
      await writeFile(
        configFile,
        JSON.stringify({
          sandbox: { root: sandboxRoot },
          // Each replica its own data.dir (records.jsonl, demo database), as docs/deploy.md says.
          data: { dir: path.join(dir, `data-${name}`) },
          server: { host: '127.0.0.1', port: 0 },
          coordination: { redis: { url: redis.url, keyPrefix: 'e2e:' } },
          demo: { rows: 2000 },
          log: { level: 'warn' },
        }),
      );
      replicas.push(await startReplica(t, name, configFile));
    }

    const haproxyPort = await freePort();
    const haproxyFile = await haproxyConfig(dir, haproxyPort, replicas);
    const haproxy = spawnChild(t, 'haproxy', ['-db', '-f', haproxyFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let haproxyErr = '';
    haproxy.stderr?.on('data', (chunk: Buffer) => (haproxyErr += chunk.toString()));
    const front = new URL(`http://127.0.0.1:${haproxyPort}`);
    await waitFor(
      () =>
        fetch(new URL('/readyz', front)).then(
          (response) => response.status === 200,
          () => false,
        ),
      `HAProxy on ${front.href} to pass /readyz through (stderr: ${haproxyErr})`,
    );

    const mcpUrl = new URL('/mcp', front);
    const clients = Array.from({ length: conversations }, (_, i) => new Conversation(`fleet-conv-${i + 1}`, mcpUrl));
    t.after(() => Promise.all(clients.map((client) => client.close())));
    await Promise.all(clients.map((client) => client.connect()));

    // Round robin spreads the sessions; every replica holds some.
    const sessionCounts = await Promise.all(replicas.map(sessionsOn));
    assert.equal(
      sessionCounts.reduce((a, b) => a + b, 0),
      conversations,
      `sessions per replica: ${sessionCounts.join(', ')}`,
    );

    // 1. Every conversation spills a table.
    const sql = (i: number) => `SELECT * FROM transactions WHERE id % ${conversations} = ${i} ORDER BY id LIMIT ${rowsPerConversation}`;
    const spills = await Promise.all(
      clients.map(async (client, i) => {
        const result = await client.call('query_sql', { sql: sql(i) });
        assert.equal(result.isError, false, textOf(result));
        const spill = result._meta?.['spillway/spill'] as { path: string; rows: number } | undefined;
        assert.ok(spill !== undefined, `${client.id}: the result was spilled`);
        assert.equal(spill.rows, rowsPerConversation);
        return spill.path;
      }),
    );

    // 2. The replica holding the most sessions is killed.
    const counts = await Promise.all(replicas.map(sessionsOn));
    const victimIndex = counts.indexOf(Math.max(...counts));
    const victim = replicas[victimIndex] as Replica;
    const survivors = replicas.filter((replica) => replica !== victim);
    const exportsBefore = await Promise.all(survivors.map((replica) => callsOn(replica, 'export_table')));
    assert.deepEqual(exportsBefore, [0, 0]);
    const exited = childExit(victim.child);
    victim.child.kill('SIGKILL');
    await exited;

    // 3. Every conversation exports its spill; the victim's clients open a new session first.
    const exports = await Promise.all(
      clients.map(async (client, i) => {
        const result = await client.call('export_table', { source: spills[i], format: 'csv', filename: `${client.id}.csv`, bom: false });
        assert.equal(result.isError, false, `${client.id}: ${textOf(result)}`);
        const output = (result.structuredContent as { result: { path: string; rows: number } }).result;
        assert.equal(output.path, `outputs/${client.id}.csv`);
        assert.equal(output.rows, rowsPerConversation);
        return output.path;
      }),
    );
    const reconnected = clients.filter((client) => client.sessions.length > 1);
    assert.equal(reconnected.length, counts[victimIndex], 'exactly the killed replica’s clients opened a new session');

    // 4. Each conversation reads its export and spills again: the new number follows the first.
    for (const [i, client] of clients.entries()) {
      const read = await client.call('read_file', { path: exports[i], limit: 5 });
      assert.equal(read.isError, false, `${client.id}: ${textOf(read)}`);
      assert.match(textOf(read), /\bid\b.*\bts\b/, `${client.id}: the CSV header`);
      const again = await client.call('query_sql', { sql: sql(i) });
      const spill = again._meta?.['spillway/spill'] as { path: string } | undefined;
      assert.ok(spill !== undefined);
      assert.notEqual(spill.path, spills[i], `${client.id}: a new spill number`);
    }

    // The files on the shared volume: per conversation one folder, two spills with distinct
    // numbers, one export of every row (never a "name (2).csv" duplicate), nothing else.
    const files = await walk(sandboxRoot);
    for (const [i, client] of clients.entries()) {
      const mine = files.filter((file) => file.split(path.sep).includes(client.id));
      const csvs = files.filter((file) => path.basename(file).startsWith(`${client.id}`) && file.endsWith('.csv'));
      assert.equal(csvs.length, 1, `${client.id}: one export (${csvs.join(', ')})`);
      const csv = await readFile(path.join(sandboxRoot, csvs[0] as string), 'utf8');
      const lines = csv.trimEnd().split(/\r?\n/);
      assert.equal(lines.length, rowsPerConversation + 1, `${client.id}: header and every row`);
      const results = mine.filter((file) => /[/\\]results[/\\]\d{4}-query_sql\.jsonl$/.test(file));
      const numbers = results.map((file) => /(\d{4})-query_sql/.exec(file)?.[1]);
      assert.equal(new Set(numbers).size, 2, `${client.id}: two spills with distinct numbers (${results.join(', ')})`);
      const first = await readFile(path.join(sandboxRoot, results.find((file) => file.endsWith(path.basename(spills[i] as string))) as string), 'utf8');
      assert.equal(first.trimEnd().split('\n').length, rowsPerConversation, `${client.id}: the first spill is whole`);
    }

    // The survivors' /metrics counted the exports (every one ran on a survivor) and the spills after the kill.
    const exportsAfter = await Promise.all(survivors.map((replica) => callsOn(replica, 'export_table')));
    assert.equal(
      exportsAfter.reduce((a, b) => a + b, 0),
      conversations,
    );
    const queriesAfter = await Promise.all(survivors.map((replica) => callsOn(replica, 'query_sql')));
    assert.ok(queriesAfter.reduce((a, b) => a + b, 0) >= conversations, `query_sql on the survivors: ${queriesAfter.join(', ')}`);
  },
);
