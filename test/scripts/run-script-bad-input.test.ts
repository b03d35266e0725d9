import assert from 'node:assert/strict';
import { access, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ExecuteResult } from '../../src/host/host.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';
import { runScript, scriptResult, snapshotTree } from './helpers.js';

// Each bad input ends its own call with a clear, coded error; nothing outside
// the conversation folder changes; and the very next call works.
describe('run_script bad input', () => {
  let env: TempHost;
  let conversationDir: string;
  let before_: Map<string, string>;
  const secret = 'OUTSIDE-SECRET-4711';

  before(async () => {
    env = await tempHost({
      script: {
        timeoutMs: 3000,
        memoryBytes: 64 * 1024 * 1024,
        stackBytes: 262144,
        maxReadBytes: 64 * 1024 * 1024,
        maxWriteBytes: 8 * 1024 * 1024,
        maxOutputChars: 100000,
      },
    });
    conversationDir = path.join(env.host.sandbox.conversation('c1').dir);
    await mkdir(path.join(env.host.sandbox.conversation('other').dir, 'results'), { recursive: true });
    await writeFile(path.join(env.host.sandbox.conversation('other').dir, 'results', 'secret.txt'), secret);
    await writeFile(path.join(env.dir, 'outside.txt'), secret);
    await mkdir(path.join(conversationDir, 'results'), { recursive: true });
    await symlink(path.join(env.dir, 'outside.txt'), path.join(conversationDir, 'results', 'link-out.txt'));
    before_ = await outside();
  });
  after(() => env.cleanup());

  /** Everything under the temp folder except this conversation and the host's own records. */
  function outside(): Promise<Map<string, string>> {
    return snapshotTree(env.dir, [conversationDir, path.join(env.dir, 'data')]);
  }

  async function expectFailure(code: string, expectedCode: string, pattern: RegExp): Promise<ExecuteResult> {
    const result = await runScript(env.host, code);
    assert.equal(result.isError, true, `expected an error, got ${result.text}`);
    assert.equal(result.error?.code, expectedCode, result.text);
    assert.match(result.text, pattern);
    assert.doesNotMatch(result.text, new RegExp(secret));
    assert.deepEqual(await outside(), before_, 'nothing outside the conversation folder changed');
    const next = await runScript(env.host, 'return 6 * 7;');
    assert.equal(scriptResult(next), 42, 'the next call works');
    return result;
  }

  function assertLimit(result: ExecuteResult, key: string, value: number): void {
    assert.deepEqual(result.error?.details, { limit: key, value });
    assert.match(result.text, new RegExp(key.replace('.', '\\.')));
  }

  test('while(true){} is stopped at the time limit', async () => {
    const result = await expectFailure('while (true) {}', 'SCRIPT_LIMIT', /ran out of time/);
    assertLimit(result, 'script.timeoutMs', 3000);
    assert.match(result.text, /3,000 ms/);
  });

  test('a 2 GB allocation is refused at the memory limit', async () => {
    const result = await expectFailure('const big = new Uint8Array(2 * 1024 * 1024 * 1024 - 1);\nreturn big.length;', 'SCRIPT_LIMIT', /out of memory/);
    assertLimit(result, 'script.memoryBytes', 64 * 1024 * 1024);
  });

  test('an allocation loop that skips interrupt checks is ended (interrupt or watchdog) with the limit named', async () => {
    const result = await runScript(env.host, 'const parts = []; while (true) parts.push("x".repeat(1e6) + parts.length);');
    assert.equal(result.isError, true);
    assert.equal(result.error?.code, 'SCRIPT_LIMIT');
    const limit = (result.error?.details as { limit: string }).limit;
    assert.ok(['script.timeoutMs', 'script.memoryBytes'].includes(limit), limit);
    assert.equal(scriptResult(await runScript(env.host, 'return 1;')), 1);
  });

  test('deep recursion ends with a clean stack overflow', async () => {
    const result = await expectFailure('function down(n) { return down(n + 1) + 1; }\nreturn down(0);', 'SCRIPT_LIMIT', /stack overflow/i);
    assertLimit(result, 'script.stackBytes', 262144);
    assert.match(result.text, /at down \(inline\.js:1:\d+\)/);
    assert.match(result.text, /the same frame \d+ more time/);
  });

  test('a syntax error names the line and column', async () => {
    const result = await expectFailure('const a = 1;\nconst b = ;\nreturn a;', 'SCRIPT_SYNTAX', /SyntaxError: .* at inline\.js:2:11/);
    assert.equal((result.error?.details as { line: number }).line, 2);
    assert.equal((result.error?.details as { column: number }).column, 11);
    assert.match(result.text, /2 \| const b = ;\n {14}\^/);
  });

  test('a syntax error on line 1 gets its column without the wrapper', async () => {
    const result = await expectFailure('const = 5;', 'SCRIPT_SYNTAX', /inline\.js:1:7/);
    assert.equal((result.error?.details as { column: number }).column, 7);
  });

  test("an exception comes back with the script's own stack", async () => {
    const code = ['function inner(value) {', '  throw new Error("bad value " + value);', '}', 'function outer() { inner(7); }', 'outer();'].join('\n');
    const result = await expectFailure(code, 'SCRIPT_ERROR', /^Error: bad value 7/);
    assert.match(result.text, /at inner \(inline\.js:2:\d+\)/);
    assert.match(result.text, /at outer \(inline\.js:4:\d+\)/);
    assert.doesNotMatch(result.text, /<spillway>/, 'prelude frames are hidden');
  });

  test('a thrown non-Error value is reported as such', async () => {
    await expectFailure('throw "plain string";', 'SCRIPT_ERROR', /threw "plain string"/);
  });

  test("readText('../other/…') is refused", async () => {
    await expectFailure("return readText('../other/results/secret.txt');", 'PATH_TRAVERSAL', /contains "\.\."/);
  });

  test("readText('/etc/passwd') is refused", async () => {
    await expectFailure("return readText('/etc/passwd');", 'PATH_ABSOLUTE', /is absolute/);
  });

  test('a symlink that leads out of the conversation is refused', async () => {
    await expectFailure("return readText('results/link-out.txt');", 'PATH_ESCAPES', /outside the conversation/);
  });

  test('writing into results/ is refused and writes nothing', async () => {
    await expectFailure("writeText('results/forged.jsonl', '{}');", 'PATH_FOLDER_NOT_ALLOWED', /args\/ or scripts\/ or outputs\//);
    await assert.rejects(access(path.join(conversationDir, 'results', 'forged.jsonl')));
  });

  test('writing 100 MB in pieces stops at the write limit', async () => {
    const code = "const piece = 'x'.repeat(1024 * 1024);\nfor (let i = 0; i < 100; i += 1) writeText('outputs/part-' + i + '.txt', piece);";
    const result = await expectFailure(code, 'SCRIPT_LIMIT', /script\.maxWriteBytes/);
    assertLimit(result, 'script.maxWriteBytes', 8 * 1024 * 1024);
    const parts = (await readdir(path.join(conversationDir, 'outputs'))).filter((name) => name.startsWith('part-'));
    assert.equal(parts.length, 8, 'only what fits in the limit was written');
  });

  test('writing 100 MB at once is stopped at a limit, and no file appears', async () => {
    const result = await runScript(env.host, "writeText('outputs/huge.txt', 'x'.repeat(100 * 1024 * 1024));");
    assert.equal(result.error?.code, 'SCRIPT_LIMIT');
    const limit = (result.error?.details as { limit: string }).limit;
    assert.ok(['script.maxWriteBytes', 'script.memoryBytes'].includes(limit), limit);
    await assert.rejects(access(path.join(conversationDir, 'outputs', 'huge.txt')));
    assert.equal(scriptResult(await runScript(env.host, 'return 1;')), 1);
  });

  test('static import is a syntax error that says modules are unavailable', async () => {
    await expectFailure("import fs from 'fs';\nreturn fs;", 'SCRIPT_SYNTAX', /Modules are not available: there is no import/);
  });

  test('dynamic import is refused', async () => {
    await expectFailure("const fs = await import('fs');\nreturn fs.readFileSync('/etc/passwd', 'utf8');", 'SCRIPT_ERROR', /Modules cannot be loaded/);
  });

  test('require does not exist', async () => {
    await expectFailure("const fs = require('fs');", 'SCRIPT_ERROR', /run_script has no require: there are no modules/);
  });

  test('globalThis.process is not there', async () => {
    await expectFailure('return globalThis.process.env.HOME;', 'SCRIPT_ERROR', /TypeError/);
    await expectFailure('process.exit(1);', 'SCRIPT_ERROR', /run_script has no process/);
  });

  test('fetch does not exist', async () => {
    await expectFailure("return await fetch('http://127.0.0.1:1/');", 'SCRIPT_ERROR', /run_script has no fetch: there is no network/);
  });

  test('WebAssembly does not exist', async () => {
    await expectFailure('return WebAssembly.compile(new Uint8Array([0, 97, 115, 109]));', 'SCRIPT_ERROR', /run_script has no WebAssembly/);
  });

  test("eval of the host API's objects reaches only the guest realm", async () => {
    await expectFailure('return eval(\'readText.constructor("return process")()\');', 'SCRIPT_ERROR', /'process' is not defined/);
    await expectFailure("return Object.getPrototypeOf(writeJson).constructor('return require')();", 'SCRIPT_ERROR', /'require' is not defined/);
    await expectFailure("return console.log.constructor.constructor('return globalThis.process.mainModule')();", 'SCRIPT_ERROR', /TypeError/);
  });

  test('prototype pollution through returned JSON is refused', async () => {
    await expectFailure('return JSON.parse(\'{"__proto__": {"polluted": true}}\');', 'SCRIPT_ERROR', /forbidden prototype property/);
    await expectFailure('return JSON.parse(\'{"constructor": {"prototype": {"polluted": true}}}\');', 'SCRIPT_ERROR', /refused/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  test('prototype pollution through an arguments file is refused', async () => {
    await expectFailure('writeText(\'args/evil.json\', \'{"__proto__": {"polluted": true}}\');', 'INVALID_JSON', /__proto__/);
    await assert.rejects(access(path.join(conversationDir, 'args', 'evil.json')));
  });

  test('a circular return value is refused with the reason', async () => {
    await expectFailure('const node = { name: "a" };\nnode.self = node;\nreturn node;', 'SCRIPT_ERROR', /circular/);
  });

  test('a never-settling promise ends at once instead of hanging', async () => {
    const result = await expectFailure('await new Promise(() => {});\nreturn 1;', 'SCRIPT_ERROR', /never settles/);
    assert.equal((result.error?.details as { reason: string }).reason, 'never-settles');
  });

  test('console output past the limit ends the run, naming it', async () => {
    const result = await expectFailure("for (;;) console.log('0123456789'.repeat(10));", 'SCRIPT_LIMIT', /console output is too long/);
    assertLimit(result, 'script.maxOutputChars', 100000);
  });
});
