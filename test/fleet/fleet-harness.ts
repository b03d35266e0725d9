import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../src/config/package-root.js';
import { spawnChild } from '../helpers/child-process.js';
import { sample, scrape, type Samples } from '../helpers/prometheus-text.js';
import { freePort, redisUnavailableReason } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The parts of the fleet end-to-end tests: real `spillway serve` replicas, HAProxy in
 * front of them with the affinity rules of deploy/haproxy/haproxy.cfg, and SDK clients
 * that each drive one conversation and know which replica holds their session.
 */

export const spillwayBin = path.join(packageRoot, 'bin', 'spillway.js');

function haproxyMissing(): string | undefined {
  const found = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return found.error === undefined && found.status === 0 ? undefined : 'haproxy is not installed (.ci/run installs the Debian package haproxy)';
}

/** Why the fleet tests cannot run here (haproxy or redis-server missing), or undefined. */
export function fleetSkipReason(): string | undefined {
  return haproxyMissing() ?? redisUnavailableReason();
}

export interface Replica {
  name: string;
  child: ChildProcess;
  base: URL;
  configFile: string;
  /** False once the test killed it. */
  alive: boolean;
}

/**
 * Starts `spillway <verb> --config FILE` and waits for the first stdout line
 * that `pattern` matches; the child exiting first fails with its stderr.
 */
async function startSpillway(
  t: TestContext,
  name: string,
  verb: string,
  configFile: string,
  pattern: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawnChild(t, process.execPath, [spillwayBin, verb, '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    lines.on('line', (line) => {
      const found = pattern.exec(line);
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before printing ${pattern}:\n${stderr}`)));
  });
  return { child, match };
}

/** Starts `spillway serve` with this config and waits for the line with its URL. */
export async function startReplica(t: TestContext, name: string, configFile: string): Promise<Replica> {
  const { child, match } = await startSpillway(t, name, 'serve', configFile, /(http:\/\/127\.0\.0\.1:\d+)\/mcp/);
  return { name, child, base: new URL(match[1] as string), configFile, alive: true };
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

/** Starts HAProxy in front of the replicas and waits until it passes /readyz through; returns its base URL. */
export async function startHaproxy(t: TestContext, dir: string, replicas: readonly Replica[]): Promise<URL> {
  const port = await freePort();
  const file = await haproxyConfig(dir, port, replicas);
  const haproxy = spawnChild(t, 'haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  haproxy.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const front = new URL(`http://127.0.0.1:${port}`);
  await waitFor(
    () =>
      fetch(new URL('/readyz', front)).then(
        (response) => response.status === 200,
        () => false,
      ),
    `HAProxy on ${front.href} to pass /readyz through (stderr: ${stderr})`,
  );
  return front;
}

export function textOf(result: CallToolResult): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

export async function metricsOf(replica: Replica): Promise<Samples> {
  return scrape(new URL('/metrics', replica.base).href);
}

const callTimeoutMs = 240_000;

/** One call the test made, on the replica that held the session. */
export interface RoutedCall {
  replica: string;
  conversation: string;
  tool: string;
  ok: boolean;
  /** The spill the result was written to, if any. */
  spill?: string;
}

/**
 * The fleet as the clients see it: which replica holds each session. Sessions are opened
 * one at a time, and the replica whose spillway_sessions gauge rose by one is the one
 * HAProxy chose; so every call can be booked to the replica that served it.
 */
export class Fleet {
  readonly calls: RoutedCall[] = [];
  private opening: Promise<unknown> = Promise.resolve();

  constructor(readonly replicas: readonly Replica[]) {}

  get alive(): Replica[] {
    return this.replicas.filter((replica) => replica.alive);
  }

  /** Opens a session through HAProxy (one at a time) and says which replica took it. */
  openSession(open: () => Promise<void>): Promise<Replica> {
    const next = this.opening.then(async () => {
      const live = this.alive;
      const before = await Promise.all(live.map(sessionsOn));
      await open();
      const after = await Promise.all(live.map(sessionsOn));
      const rose = live.filter((_, i) => (after[i] as number) === (before[i] as number) + 1);
      const same = live.filter((_, i) => after[i] === before[i]);
      assert.ok(
        rose.length === 1 && same.length === live.length - 1,
        `one replica took the new session (before ${before.join(', ')}, after ${after.join(', ')})`,
      );
      return rose[0] as Replica;
    });
    this.opening = next.catch(() => undefined);
    return next;
  }

  /** How many of the calls the test booked to this replica pass `filter`. */
  count(replica: Replica, filter: (call: RoutedCall) => boolean = () => true): number {
    return this.calls.filter((call) => call.replica === replica.name && filter(call)).length;
  }
}

async function sessionsOn(replica: Replica): Promise<number> {
  return sample(await metricsOf(replica), 'spillway_sessions');
}

/** One conversation's client: opens a new session (same conversation id) when its replica was killed. */
export class Conversation {
  private client: Client | undefined;
  /** Replicas that held this conversation's sessions, in order. */
  readonly sessions: Replica[] = [];

  constructor(
    readonly id: string,
    private readonly url: URL,
    private readonly fleet: Fleet,
  ) {}

  get replica(): Replica {
    const current = this.sessions.at(-1);
    assert.ok(current !== undefined, `${this.id} has no session`);
    return current;
  }

  async connect(): Promise<void> {
    const replica = await this.fleet.openSession(async () => {
      const transport = new StreamableHTTPClientTransport(this.url, { requestInit: { headers: { 'Mcp-Conversation-Id': this.id } } });
      const client = new Client({ name: `fleet-${this.id}`, version: '1' });
      await client.connect(transport);
      this.client = client;
    });
    this.sessions.push(replica);
  }

  /**
   * A call, booked to the replica that answered. When the session's replica was killed the
   * call fails (HAProxy sends it to a survivor, which does not know the session: 404);
   * then a new session on a survivor, and the call again. Any other failure fails the test.
   */
  async call(name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<CallToolResult> {
    // The SDK's 60 s default only bounds a hang here: on a loaded machine sixty file jobs
    // queue for two worker threads.
    const requestOptions = { timeout: callTimeoutMs, ...options };
    let result: CallToolResult;
    try {
      result = (await this.client!.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
    } catch (error) {
      if (this.replica.alive) throw error;
      await this.client?.close().catch(() => undefined);
      await this.connect();
      result = (await this.client!.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
    }
    const spill = result._meta?.['spillway/spill'] as { path: string } | undefined;
    this.fleet.calls.push({
      replica: this.replica.name,
      conversation: this.id,
      tool: name,
      ok: result.isError !== true,
      ...(spill === undefined ? {} : { spill: spill.path }),
    });
    return result;
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
  }
}

export interface Worker {
  name: string;
  child: ChildProcess;
  /** Threads, from its ready line. */
  threads: number;
}

/** Starts `spillway worker` with this config and waits for its ready line. */
export async function startWorker(t: TestContext, name: string, configFile: string): Promise<Worker> {
  const ready = /^spillway worker: ready \((\d+) threads?, queue file-jobs at redis:\/\/127\.0\.0\.1:\d+\)$/;
  const { child, match } = await startSpillway(t, name, 'worker', configFile, ready);
  return { name, child, threads: Number(match[1]) };
}

/** Resolves once the process is stopped (SIGSTOP took effect: state T in /proc/<pid>/stat). */
export async function whenStopped(child: ChildProcess, name: string): Promise<void> {
  await waitFor(async () => {
    const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  }, `${name} (pid ${child.pid}) to be stopped`);
}
