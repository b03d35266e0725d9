import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { freePort } from '../helpers/redis-server.js';
import { logLines, runCli, type CliRun } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

// A new user's first hour (issue 24), through the real CLI: `node bin/spillway.js …` as built.

const version = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** The verbs, one file each in src/cli/commands. */
const verbs = readdirSync(path.join(packageRoot, 'src', 'cli', 'commands'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.slice(0, -'.ts'.length))
  .sort();

test('spillway --version and -v print the version in package.json and exit 0', async (t) => {
  for (const flag of ['--version', '-v']) {
    const run = await runCli(t, [flag]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${version}\n`);
    assert.equal(run.stderr, '');
  }
});

test('spillway --help lists every verb of src/cli/commands and exits 0', async (t) => {
  assert.ok(verbs.length >= 7, verbs.join(', '));
  const run = await runCli(t, ['--help']);
  assert.equal(run.code, 0, run.stderr);
  for (const verb of verbs) assert.match(run.stdout, new RegExp(`^  ${verb} `, 'm'), `${verb} is not listed`);
  assert.match(run.stdout, /--version/);
});

for (const verb of verbs) {
  test(`spillway ${verb} --help prints its usage with an example and exits 0 (so does spillway help ${verb})`, async (t) => {
    const run = await runCli(t, [verb, '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, new RegExp(`^spillway ${verb}\\b`));
    const examples = run.stdout.split(/^Examples:$/m)[1] ?? '';
    assert.match(examples, new RegExp(`^  (\\S+=\\S+ )?spillway ${verb}\\b`, 'm'), `no example under "Examples:":\n${run.stdout}`);
    assert.deepEqual(await runCli(t, ['help', verb]), run);
  });
}

test('an unknown command is one line on stderr that suggests the closest verb, exit 2; no verb prints the verbs, exit 2', async (t) => {
  const run = await runCli(t, ['sevre']);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, /^spillway: unknown command "sevre" \(did you mean "serve"\?\)/);
  const help = await runCli(t, ['help', 'nosuch']);
  assert.equal(help.code, 2);
  assert.match(help.stderr, /^spillway: unknown command "nosuch"; commands: serve, /);
  // No verb at all: the list of verbs, as a usage error.
  const bare = await runCli(t, []);
  assert.equal(bare.code, 2);
  assert.match(bare.stdout, /^Usage: spillway <command>/);
});

/** The bad start contract: exactly one line on stderr from the CLI, no log line anywhere, no stack, the documented exit code. */
function assertBadStart(run: CliRun, verb: string, code: number, pattern: RegExp): void {
  assert.equal(run.code, code, `exit code of ${verb}: ${run.stderr}`);
  assert.deepEqual(logLines(run.stdout), [], `log lines on stdout:\n${run.stdout}`);
  assert.deepEqual(logLines(run.stderr), [], `log lines on stderr:\n${run.stderr}`);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${run.stderr}`);
  assert.match(lines[0] as string, new RegExp(`^spillway ${verb}: `));
  assert.match(lines[0] as string, pattern);
}

test('bad starts of every verb end with one line on stderr, no log lines, and the documented exit code (slow: 16 CLI processes)', async (t) => {
  const dir = await tempDir(t, 'spillway-bad-start-');
  const write = async (name: string, content: unknown) => {
    const file = path.join(dir, name);
    await writeFile(file, JSON.stringify(content));
    return file;
  };
  // No log.level in these files: the default (info) is what a new user has.
  const base = { sandbox: { root: 'sandbox' }, data: { dir: 'data' }, demo: { rows: 200, seed: 3 } };
  const good = await write('good.json', base);
  const typo = await write('typo.json', { ...base, sandbox: { rot: 'sandbox' } });
  const open = await write('open.json', { ...base, server: { host: '0.0.0.0', port: 0 } });
  const noRedis = await write('no-redis.json', { ...base, coordination: { redis: { url: `redis://127.0.0.1:${await freePort()}` } } });
  const missing = path.join(dir, 'missing.json');
  const notSandbox = path.join(dir, 'not-a-sandbox');
  await mkdir(notSandbox);
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const busy = String((blocker.address() as AddressInfo).port);

  const cases: [string[], number, RegExp][] = [
    [['serve', '--config', typo], 1, /unknown key "sandbox\.rot": did you mean "sandbox\.root"\? \[CONFIG_INVALID\]$/],
    [['serve', '--config', missing], 1, /Cannot read the configuration file/],
    [['serve', '--config', good, '--port', busy], 1, /the port is in use/],
    [['serve', '--config', open], 1, /server\.auth\.mode is "none"/],
    [['serve', '--config', good, '--port', 'abc'], 2, /--port must be an integer/],
    [['serve', '--bogus'], 2, /Unknown option '--bogus'.*spillway serve --help/],
    [['demo', '--config', typo], 1, /unknown key "sandbox\.rot"/],
    [['call', 'read_file', '--config', typo], 1, /unknown key "sandbox\.rot"/],
    [['call'], 2, /give exactly one TOOL/],
    [['export', path.join(dir, 'nothing.jsonl'), '-o', path.join(dir, 'x.csv')], 1, /nothing\.jsonl/],
    [['cleanup', '--config', good, '--root', notSandbox], 1, /no \.spillway-sandbox marker/],
    [['cleanup', '--older-than', 'soon'], 2, /--older-than/],
    [['upstreams', '--config', typo], 1, /unknown key "sandbox\.rot"/],
    [['worker', '--config', good], 2, /coordination\.redis is not set/],
    [['worker', '--config', noRedis], 1, /coordination\.redis\.url/],
    [['migrate-sandbox', '--root', notSandbox], 1, /no \.spillway-sandbox marker/],
  ];
  for (const [args, code, pattern] of cases) assertBadStart(await runCli(t, args, { cwd: dir }), args[0] as string, code, pattern);
  assert.deepEqual([...new Set(cases.map(([args]) => args[0]))].sort(), verbs);
});

test('spillway demo prints the walkthrough without log lines; --verbose adds them on stderr', async (t) => {
  const dir = await tempDir(t, 'spillway-demo-');
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, JSON.stringify({ sandbox: { root: 'sandbox' }, data: { dir: 'data' }, demo: { rows: 2000, seed: 3 } }));
  const quiet = await runCli(t, ['demo', '--config', file, '--conversation', 'quiet'], { cwd: dir });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.match(quiet.stdout, /Walkthrough finished\./);
  assert.deepEqual(logLines(quiet.stdout), []);
  assert.equal(quiet.stderr, '');
  const verbose = await runCli(t, ['demo', '--config', file, '--conversation', 'verbose', '--verbose'], { cwd: dir });
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.deepEqual(logLines(verbose.stdout), []);
  assert.ok(logLines(verbose.stderr).length > 0, verbose.stderr);
});
