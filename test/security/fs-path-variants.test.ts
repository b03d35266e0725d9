import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/output.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';
import { snapshotTree } from './tree-snapshot.js';

const secrets = /SECRET-OUTSIDE|SECRET-OTHER/;

/**
 * A conversation with every kind of planted object (symlinks out, to another
 * conversation, to itself; a FIFO; a hard link to a file outside; folders),
 * an "outside" folder and another conversation holding secrets.
 */
async function plantedEnv(t: TestContext): Promise<TempHost & { outside: string; conversation: string }> {
  const env = await tempHost({ demo: { rows: 50, seed: 3 } });
  const outside = await mkdtemp(path.join(tmpdir(), 'spillway-outside-'));
  t.after(async () => {
    await env.cleanup();
    await rm(outside, { recursive: true, force: true });
  });
  await writeFile(path.join(outside, 'secret.txt'), 'SECRET-OUTSIDE\n');
  await writeFile(path.join(outside, 'secret.jsonl'), '{"s":"SECRET-OUTSIDE"}\n');
  await writeFile(path.join(outside, 'spec.json'), '{"title":"SECRET-OUTSIDE","blocks":[]}');
  const conversation = 'c1';
  await plant(env, conversation, outside);
  return { ...env, outside, conversation };
}

async function plant(env: TempHost, conversation: string, outside: string): Promise<void> {
  const other = env.host.sandbox.conversation('other');
  await other.ensure();
  await writeFile(path.join(other.dir, 'results/0001-x.jsonl'), '{"s":"SECRET-OTHER"}\n');
  const sandbox = env.host.sandbox.conversation(conversation);
  await sandbox.ensure();
  const dir = sandbox.dir;
  await writeFile(path.join(dir, 'results/ok.jsonl'), '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n');
  await writeFile(path.join(dir, 'args/ok.json'), '{"title":"t"}');
  await mkdir(path.join(dir, 'results/dir'));
  for (const folder of ['results', 'args', 'scripts', 'outputs']) {
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, folder, 'out-file'));
    await symlink(path.join(outside, 'secret.jsonl'), path.join(dir, folder, 'out.jsonl'));
    await symlink(outside, path.join(dir, folder, 'out-dir'));
    await symlink(other.dir, path.join(dir, folder, 'to-other'));
    await link(path.join(outside, 'secret.jsonl'), path.join(dir, folder, 'hard.jsonl'));
    execFileSync('mkfifo', [path.join(dir, folder, 'fifo')]);
  }
  await symlink(path.join(dir, 'results/ok.jsonl'), path.join(dir, 'results/alias.jsonl'));
}

const segments = [
  'results',
  'args',
  'scripts',
  'outputs',
  'out-file',
  'out.jsonl',
  'out-dir',
  'to-other',
  'hard.jsonl',
  'fifo',
  'dir',
  'ok.jsonl',
  'alias.jsonl',
  'ok.json',
];
const oddSegments = ['..', '.', '', 'secret.txt', 'spec.json', '%2e%2e', '..\\..', '\u0000', 'ＮＵＬ', 'results\u2215..', 'x.json', '0001-x.jsonl', 'other'];

/** Paths a model (or an attacker) might send: mostly built from planted names, with traversal and odd spellings mixed in. */
const sandboxPath = fc
  .tuple(
    fc.constantFrom('', '/', './', '../', '~/'),
    fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...segments) }, { weight: 1, arbitrary: fc.constantFrom(...oddSegments) }), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([prefix, parts]) => prefix + parts.join('/'));

/** Every tool argument that names a sandbox path, as a call built from one generated path. */
const entryPoints: Record<string, (candidate: string) => { name: string; arguments: Record<string, unknown> }> = {
  'read_file.path': (candidate) => ({ name: 'read_file', arguments: { path: candidate } }),
  'search_file.path': (candidate) => ({ name: 'search_file', arguments: { path: candidate, pattern: 'S' } }),
  'list_files.dir': (candidate) => ({ name: 'list_files', arguments: { dir: candidate } }),
  'export_table.source': (candidate) => ({ name: 'export_table', arguments: { source: candidate, format: 'csv' } }),
  'export_table.filename': (candidate) => ({ name: 'export_table', arguments: { source: 'results/ok.jsonl', format: 'csv', filename: candidate } }),
  'draw_table.source': (candidate) => ({ name: 'draw_table', arguments: { source: candidate } }),
  'build_document.specPath': (candidate) => ({ name: 'build_document', arguments: { format: 'docx', specPath: candidate } }),
  'attach_file.path': (candidate) => ({ name: 'attach_file', arguments: { path: candidate } }),
  'attach_file.filename': (candidate) => ({ name: 'attach_file', arguments: { path: 'results/ok.jsonl', filename: candidate } }),
  'write_file.path': (candidate) => ({ name: 'write_file', arguments: { path: candidate, content: '{"written":true}' } }),
  'run_script.path': (candidate) => ({ name: 'run_script', arguments: { path: candidate } }),
  'run_script reads': (candidate) => ({ name: 'run_script', arguments: { code: `console.log(readText(${JSON.stringify(candidate)}))` } }),
  'run_script writes': (candidate) => ({ name: 'run_script', arguments: { code: `writeText(${JSON.stringify(candidate)}, 'written')` } }),
  'call_with_args_file.argsPath': (candidate) => ({ name: 'call_with_args_file', arguments: { tool: 'list_files', argsPath: candidate } }),
  'inspect_file.path': (candidate) => ({ name: 'inspect_file', arguments: { path: candidate } }),
  'query_files table path': (candidate) => ({ name: 'query_files', arguments: { sql: `SELECT * FROM '${candidate.replaceAll("'", "''")}'` } }),
  'build_chart.source': (candidate) => ({
    name: 'build_chart',
    arguments: { source: candidate, spec: { mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' }, y: { field: 'a', type: 'quantitative' } } } },
  }),
  $file: (candidate) => ({ name: 'call_with_args_file', arguments: { tool: 'echo', argsPath: 'args/ok.json', overrides: { body: { $file: candidate } } } }),
};

test('every tool argument that takes a path (slow: 30 generated paths for each of the tools that take one, each a real call), against generated paths and planted objects: nothing outside is read, written or changed, and every call ends', async (t) => {
  const env = await plantedEnv(t);
  env.host.registerTool({ name: 'echo', description: 'echoes', inputSchema: { type: 'object' }, handler: (args) => ({ value: args }) });
  const outsideBefore = await snapshotTree(env.outside);
  const otherBefore = await snapshotTree(env.host.sandbox.conversation('other').dir);
  for (const [entry, build] of Object.entries(entryPoints)) {
    await fc.assert(
      fc.asyncProperty(sandboxPath, async (candidate) => {
        const result = await env.host.execute(build(candidate), { conversationId: env.conversation });
        assert.doesNotMatch(result.text, secrets, `${entry} ${JSON.stringify(candidate)} revealed a secret: ${result.text.slice(0, 300)}`);
        assert.notEqual(result.error?.code, 'INTERNAL', `${entry} ${JSON.stringify(candidate)}: ${result.text.slice(0, 300)}`);
      }),
      { numRuns: 30, seed: 11 },
    );
  }
  assert.deepEqual(await snapshotTree(env.outside), outsideBefore, 'nothing outside the sandbox changed');
  assert.deepEqual(await snapshotTree(env.host.sandbox.conversation('other').dir), otherBefore, "the other conversation's folder did not change");
});

test("resources/read over MCP, against generated URIs and planted objects: only the caller's own outputs/ are ever returned", async (t) => {
  const env = await plantedEnv(t);
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const client = new Client({ name: 'variants', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(front.url));
  await client.connect(transport);
  t.after(() => client.close());
  // The session's own conversation gets the same planted objects.
  await plant(env, transport.sessionId as string, env.outside);
  const outsideBefore = await snapshotTree(env.outside);
  await fc.assert(
    fc.asyncProperty(sandboxPath, fc.boolean(), async (candidate, encode) => {
      const tail = encode ? candidate.split('/').map(encodeURIComponent).join('/') : candidate;
      try {
        const read = await client.readResource({ uri: `spillway://sandbox/${tail}` });
        const text = JSON.stringify(read.contents);
        assert.doesNotMatch(text, secrets);
        assert.doesNotMatch(Buffer.from((read.contents[0] as { blob?: string }).blob ?? '', 'base64').toString('utf8'), secrets);
      } catch (error) {
        assert.doesNotMatch(String((error as Error).message), secrets);
      }
    }),
    { numRuns: 60, seed: 5 },
  );
  assert.deepEqual(await snapshotTree(env.outside), outsideBefore);
});

test('spillway cleanup --root, against roots that are symlinks, markerless folders, files, FIFOs and /: never deletes outside a marked sandbox', async (t) => {
  const env = await plantedEnv(t);
  const old = new Date(Date.now() - 90 * 86_400_000);
  for (const name of ['results', 'c9/results']) await mkdir(path.join(env.outside, name), { recursive: true });
  for (const file of ['results/old.jsonl', 'c9/results/old.jsonl']) {
    await writeFile(path.join(env.outside, file), '{}\n');
    await utimes(path.join(env.outside, file), old, old);
  }
  const rootLink = path.join(env.dir, 'root-link');
  await symlink(env.outside, rootLink);
  execFileSync('mkfifo', [path.join(env.dir, 'root-fifo')]);
  const outsideBefore = await snapshotTree(env.outside);
  const roots = [
    env.outside,
    rootLink,
    `${env.sandboxRoot}/../..${env.outside}`,
    path.join(env.host.sandbox.conversation(env.conversation).dir),
    path.join(env.host.sandbox.conversation(env.conversation).dir, 'results/out-dir'),
    path.join(env.dir, 'root-fifo'),
    path.join(env.outside, 'secret.txt'),
    '/',
    '',
  ];
  const io: CliIo = { interactive: false, out: () => undefined, err: () => undefined };
  for (const root of roots) {
    const status = await main(['cleanup', '--root', root, '--older-than', '1d'], io);
    assert.equal(status, 1, `cleanup --root ${JSON.stringify(root)} refused`);
  }
  assert.deepEqual(await snapshotTree(env.outside), outsideBefore);
});
