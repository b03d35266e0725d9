import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { applySet, callExitCodes } from '../../src/cli/commands/call.js';

const bin = path.join(packageRoot, 'bin', 'spillway.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real binary (bin/spillway.js) with a config whose sandbox lives in a temp folder. */
async function setup(t: TestContext) {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-call-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const config = path.join(dir, 'config.json');
  await writeFile(
    config,
    JSON.stringify({
      sandbox: { root: path.join(dir, 'sandbox') },
      data: { dir: path.join(dir, 'data') },
      log: { level: 'warn' },
      policy: { rules: { run_script: 'deny' } },
    }),
  );
  const call = (args: string[], stdin?: string): Promise<Run> =>
    new Promise((resolve, reject) => {
      const env = { ...process.env };
      delete env.SPILLWAY_CONFIG;
      const child = spawn(process.execPath, [bin, 'call', ...args, '--config', config], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin ?? '');
    });
  // The binary runs in another process: its conversation folder is <root>/<principal>/<conversation>, principal local.
  return { dir, call, sandbox: path.join(dir, 'sandbox', 'local', 'cli') };
}

test('spillway call runs a tool through the host: arguments from stdin and --set, result on stdout, --json, spill and record', async (t) => {
  const { dir, call, sandbox } = await setup(t);
  const rows = Array.from({ length: 50 }, (_, index) => ({ id: index, name: `row-${index}` }));
  const written = await call(
    ['write_file', '--args-file', '-', '--set', 'path=args/rows.json', '--json'],
    JSON.stringify({ path: 'args/other.json', content: rows }),
  );
  assert.equal(written.code, 0, written.stderr);
  const json = JSON.parse(written.stdout) as { result: { path: string }; isError: boolean; notes: string[] };
  assert.equal(json.isError, false);
  assert.equal(json.result.path, 'args/rows.json');

  await writeFile(path.join(dir, 'read.json'), JSON.stringify({ path: 'args/rows.json' }));
  const read = await call(['read_file', '--args-file', 'read.json', '--set', 'limit=3']);
  assert.equal(read.code, 0, read.stderr);
  assert.match(read.stdout, /args\/rows\.json/);
  assert.equal(read.stderr, '');

  // A large result spills like a model's call would, and the call is recorded.
  await writeFile(path.join(dir, 'export.json'), JSON.stringify({ source: 'args/rows.json', format: 'csv' }));
  const exported = await call(['export_table', '--args-file', 'export.json', '--conversation', 'cli', '--json']);
  assert.equal(exported.code, 0, exported.stderr);
  const card = JSON.parse(exported.stdout) as { attachments: { path: string }[] };
  assert.equal(card.attachments[0]?.path, 'outputs/rows.csv');
  assert.equal((await readFile(path.join(sandbox, 'outputs', 'rows.csv'), 'utf8')).trim().split('\n').length, 51);
  const records = (await readFile(path.join(dir, 'data', 'records.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { tool: string; caller: string });
  assert.deepEqual(
    records.map((record) => record.tool),
    ['write_file', 'read_file', 'export_table'],
  );
  assert.equal(records[0]?.caller, 'cli');
});

test('spillway call exits with a distinct code and a one-line message per failure class', async (t) => {
  const { dir, call } = await setup(t);
  await writeFile(path.join(dir, 'broken.json'), '{"path": ');
  await writeFile(path.join(dir, 'array.json'), '[1]');
  const cases: { args: string[]; code: number; error: RegExp }[] = [
    {
      args: ['read_fil'],
      code: callExitCodes.unknownTool,
      error: /^spillway call: TOOL_NOT_FOUND: There is no tool named "read_fil"\. Did you mean: read_file\?$/,
    },
    {
      args: ['read_file', '--args-file', 'broken.json'],
      code: callExitCodes.unreadableArguments,
      error: /^spillway call: INVALID_JSON: The arguments in broken\.json are not valid JSON/,
    },
    { args: ['read_file', '--args-file', 'array.json'], code: callExitCodes.unreadableArguments, error: /^spillway call: ARGS_NOT_OBJECT: / },
    {
      args: ['read_file', '--args-file', 'missing.json'],
      code: callExitCodes.unreadableArguments,
      error: /^spillway call: INVALID_JSON: The arguments file missing\.json cannot be read/,
    },
    {
      args: ['read_file', '--set', 'path=3', '--set', 'limit=x'],
      code: callExitCodes.invalidArguments,
      error: /^spillway call: INVALID_ARGUMENTS: .*path.*limit/,
    },
    { args: ['run_script', '--set', 'code=return 1'], code: callExitCodes.refused, error: /^spillway call: PERMISSION_DENIED: / },
    { args: ['read_file', '--set', 'path=results/none.jsonl'], code: callExitCodes.toolFailed, error: /^spillway call: PATH_NOT_FOUND: / },
    { args: [], code: callExitCodes.usage, error: /give exactly one TOOL/ },
  ];
  for (const { args, code, error } of cases) {
    const run = await call(args);
    assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
    if (code !== callExitCodes.usage) assert.equal(run.stderr.trimEnd().split('\n').length, 1, `one line: ${run.stderr}`);
    assert.match(run.stderr.trimEnd(), error);
    assert.equal(run.stdout, '');
  }
  assert.equal(new Set(cases.map((entry) => entry.code)).size, 6);
});

test('--set builds nested members, parses JSON values and refuses prototype keys', () => {
  const args: Record<string, unknown> = { range: { start: 1 } };
  applySet(args, 'range.count=10');
  applySet(args, 'format=csv');
  applySet(args, 'columns=["a","b"]');
  applySet(args, 'label=a=b');
  assert.deepEqual(args, { range: { start: 1, count: 10 }, format: 'csv', columns: ['a', 'b'], label: 'a=b' });
  assert.throws(() => applySet(args, '__proto__.x=1'), /not allowed/);
  assert.throws(() => applySet(args, 'novalue'), /key=value/);
});

test('spillway call --principal runs in <root>/<principal>/<conversation>; a bad principal is a coded failure', async (t) => {
  const { dir, call } = await setup(t);
  const written = await call(['write_file', '--set', 'path=args/mine.json', '--set', 'content=[1,2]', '--principal', 'alice', '--conversation', 'playbook']);
  assert.equal(written.code, 0, written.stderr);
  assert.deepEqual(JSON.parse(await readFile(path.join(dir, 'sandbox', 'alice', 'playbook', 'args', 'mine.json'), 'utf8')), [1, 2]);
  const other = await call(['read_file', '--set', 'path=args/mine.json', '--conversation', 'playbook']);
  assert.notEqual(other.code, 0, "the local principal does not see alice's file");
  assert.match(other.stderr, /^spillway call: PATH_NOT_FOUND: /);
  const bad = await call(['list_files', '--principal', '../etc']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /^spillway call: PRINCIPAL_INVALID: /);
});
