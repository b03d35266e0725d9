import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { newGuestString } from '../../src/script/guest-strings.js';
import { makeRows, tempHost, type TempHost } from '../helpers/temp-host.js';
import { runScript, scriptResult } from './helpers.js';

describe('run_script host API', () => {
  let env: TempHost;
  let dir: string;
  let spill: string;
  const rows = makeRows(2500);

  before(async () => {
    env = await tempHost({
      script: {
        timeoutMs: 30000,
        memoryBytes: 128 * 1024 * 1024,
        stackBytes: 262144,
        maxReadBytes: 8 * 1024 * 1024,
        maxWriteBytes: 8 * 1024 * 1024,
        maxOutputChars: 1_000_000,
      },
    });
    dir = path.join(env.host.sandbox.conversation('c1').dir);
    env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
    const spilled = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'c1' });
    spill = spilled.spill?.path as string;
  });
  after(() => env.cleanup());

  /** Big results spill (the model sees a prefix), so whole tables are compared through a file. */
  async function rowsThroughFile(code: string, name: string): Promise<unknown> {
    const result = await runScript(env.host, `${code}\nreturn writeJson('outputs/${name}.json', all);`, { args: { path: spill } });
    return JSON.parse(await readFile(path.join(dir, scriptResult(result) as string), 'utf8'));
  }

  test('readRows reads a whole JSONL spill as objects', async () => {
    assert.deepEqual(await rowsThroughFile('const all = readRows(args.path);', 'whole'), rows);
  });

  test('readRows pages with offset and limit, and the pages add up to the whole table', async () => {
    const code =
      'const all = []; for (let offset = 0; ; offset += 300) { const page = readRows(args.path, { offset, limit: 300 }); if (page.length === 0) break; all.push(...page); }';
    assert.deepEqual(await rowsThroughFile(code, 'paged'), rows);
    const page = scriptResult(
      await runScript(env.host, 'return readRows(args.path, { offset: 2498, limit: 10 }).map((row) => row.id);', { args: { path: spill } }),
    );
    assert.deepEqual(page, [2499, 2500]);
    assert.deepEqual(scriptResult(await runScript(env.host, 'return readRows(args.path, { offset: 9999 });', { args: { path: spill } })), []);
  });

  test('readRows skips blank lines, reads JSON arrays, and names the line of a bad row', async () => {
    await writeFile(path.join(dir, 'outputs', 'blank.jsonl'), '{"a":1}\n\n  \r\n{"a":2}\r\n{"a":3}');
    assert.deepEqual(scriptResult(await runScript(env.host, "return readRows('outputs/blank.jsonl', { offset: 1 });")), [{ a: 2 }, { a: 3 }]);
    await writeFile(path.join(dir, 'outputs', 'array.json'), JSON.stringify([{ a: 1 }, { a: 2 }, { a: 3 }]));
    assert.deepEqual(scriptResult(await runScript(env.host, "return readRows('outputs/array.json', { offset: 1, limit: 1 });")), [{ a: 2 }]);
    await writeFile(path.join(dir, 'outputs', 'two-per-line.jsonl'), '{"a":1}\n{"a":2},{"a":3}\n');
    const bad = await runScript(env.host, "return readRows('outputs/two-per-line.jsonl');");
    assert.equal(bad.error?.code, 'INVALID_JSON');
    assert.match(bad.text, /line 2 is not valid JSON/);
    await writeFile(path.join(dir, 'outputs', 'scalars.jsonl'), '1\n2\n');
    assert.equal((await runScript(env.host, "return readRows('outputs/scalars.jsonl');")).error?.code, 'NOT_A_TABLE');
  });

  test('readRows validates its options', async () => {
    const result = await runScript(env.host, 'return readRows(args.path, { limit: 0 });', { args: { path: spill } });
    assert.equal(result.error?.code, 'SCRIPT_ERROR');
    assert.match(result.text, /limit must be an integer >= 1/);
  });

  test('readText, readJson and writeText keep text exactly, NUL characters included', async () => {
    const value = 'a\u0000b é 😀 \u2028 "q" \\';
    const code = "const path = writeText('outputs/nul.txt', args.value); return { path, back: readText(path), json: readJson('outputs/array.json') };";
    const result = scriptResult(await runScript(env.host, code, { args: { value } })) as { path: string; back: string; json: unknown };
    assert.equal(result.back, value);
    assert.deepEqual(result.json, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    assert.equal(await readFile(path.join(dir, result.path), 'utf8'), value);
  });

  test('readJson reports invalid JSON with the file name', async () => {
    const result = await runScript(env.host, 'return readJson(args.path);', { args: { path: spill } });
    assert.equal(result.error?.code, 'INVALID_JSON');
    assert.match(result.text, /readJson: results\/0001-rows\.jsonl is not valid JSON.*use readRows/);
  });

  test('writeJson writes pretty JSON under args/ and returns the path; outputs/ files become attachments with a free name', async () => {
    const result = await runScript(
      env.host,
      "writeJson('args/a.json', { x: [1, 2] }); const first = writeText('outputs/report.txt', 'one'); const again = writeText('outputs/report.txt', 'two'); return [first, again];",
    );
    assert.deepEqual(scriptResult(result), ['outputs/report.txt', 'outputs/report.txt']);
    assert.equal(await readFile(path.join(dir, 'args', 'a.json'), 'utf8'), '{\n  "x": [\n    1,\n    2\n  ]\n}\n');
    assert.deepEqual((result.value as { written: string[] }).written, ['args/a.json', 'outputs/report.txt']);
    assert.deepEqual(
      result.attachments.map((attachment) => [attachment.path, attachment.bytes, attachment.uri]),
      [['outputs/report.txt', 3, 'spillway://sandbox/outputs/report.txt']],
    );
    // A later run never replaces the download the user already has.
    const second = await runScript(env.host, "return writeText('outputs/report.txt', 'three');");
    assert.equal(scriptResult(second), 'outputs/report (2).txt');
    assert.equal(await readFile(path.join(dir, 'outputs', 'report.txt'), 'utf8'), 'two');
    assert.deepEqual(
      second.attachments.map((attachment) => attachment.path),
      ['outputs/report (2).txt'],
    );
    const leftovers = (await readdir(path.join(dir, 'outputs'))).filter((name) => name.endsWith('.tmp'));
    assert.deepEqual(leftovers, [], 'atomic writes leave no temporary files');
  });

  test('an args file larger than args.maxBytes is refused before it is written', async () => {
    const result = await runScript(env.host, "writeText('args/big.json', JSON.stringify({ text: 'x'.repeat(2 * 1024 * 1024) }));");
    assert.equal(result.error?.code, 'RESULT_TOO_LARGE');
    assert.match(result.text, /args\.maxBytes/);
  });

  test('console output and the return value come back together', async () => {
    const result = await runScript(env.host, "console.log('rows', 3, { a: 1 }); console.error(new Error('careful')); return { ok: true };");
    assert.deepEqual(result.value, { result: { ok: true }, console: 'rows 3 {"a":1}\nError: careful\n' });
  });

  test('a script that returns nothing gives null; await works on host functions', async () => {
    assert.equal(
      scriptResult(await runScript(env.host, 'const rows = await readRows(args.path, { limit: 1 }); console.log(rows.length);', { args: { path: spill } })),
      null,
    );
  });

  test('listFiles lists the conversation with rows and columns', async () => {
    const files = scriptResult(await runScript(env.host, "return listFiles('results');")) as { path: string; rows?: number; columns?: string[] }[];
    const entry = files.find((file) => file.path === spill);
    assert.equal(entry?.rows, 2500);
    assert.deepEqual(entry?.columns, ['id', 'name', 'amount', 'active', 'note']);
  });

  test('a script saved under scripts/ runs by path, with its path in stacks', async () => {
    const saved = await env.host.execute(
      {
        name: 'write_file',
        arguments: {
          path: 'scripts/count.js',
          content: 'const rows = readRows(args.path);\nif (args.fail) throw new Error("asked to fail");\nreturn rows.length;\n',
        },
      },
      { conversationId: 'c1' },
    );
    assert.equal(saved.isError, false, saved.text);
    const ok = await env.host.execute({ name: 'run_script', arguments: { path: 'scripts/count.js', args: { path: spill } } }, { conversationId: 'c1' });
    assert.equal(scriptResult(ok), 2500);
    const failed = await env.host.execute(
      { name: 'run_script', arguments: { path: 'scripts/count.js', args: { path: spill, fail: true } } },
      { conversationId: 'c1' },
    );
    assert.match(failed.text, /at <anonymous> \(scripts\/count\.js:2:\d+\)/);
    const outsideScripts = await env.host.execute({ name: 'run_script', arguments: { path: spill } }, { conversationId: 'c1' });
    assert.equal(outsideScripts.error?.code, 'PATH_FOLDER_NOT_ALLOWED');
  });

  test('exactly one of code or path is required', async () => {
    const neither = await env.host.execute({ name: 'run_script', arguments: {} }, { conversationId: 'c1' });
    assert.equal(neither.error?.code, 'INVALID_ARGUMENTS');
    const both = await env.host.execute({ name: 'run_script', arguments: { code: 'return 1', path: 'scripts/count.js' } }, { conversationId: 'c1' });
    assert.equal(both.error?.code, 'INVALID_ARGUMENTS');
  });

  test('reads past script.maxReadBytes end the run, naming the limit', async () => {
    const code = 'for (let i = 0; i < 1000; i += 1) readText(args.path);';
    const result = await runScript(env.host, code, { args: { path: spill } });
    assert.equal(result.error?.code, 'SCRIPT_LIMIT');
    assert.deepEqual(result.error?.details, { limit: 'script.maxReadBytes', value: 8 * 1024 * 1024 });
  });

  test('a limit cannot be caught and ignored by the script', async () => {
    const code = "try { for (;;) console.log('x'.repeat(1000)); } catch (error) { return 'caught'; }";
    const result = await runScript(env.host, code);
    assert.equal(result.error?.code, 'SCRIPT_LIMIT');
  });

  test('a long result spills by the usual rules', async () => {
    const result = await runScript(env.host, 'return readRows(args.path, { limit: 200 });', { args: { path: spill } });
    assert.equal(result.spill?.format, 'jsonl');
    assert.equal(result.spill?.rows, 200);
  });

  test('a string crosses into QuickJS byte for byte through the fast path', async () => {
    const module = await newQuickJSWASMModule();
    const context = module.newContext();
    try {
      for (const text of ['plain', 'é 😀 \u2028 中文', 'x'.repeat(100_000)]) {
        const handle = newGuestString(context, Buffer.from(text, 'utf8'));
        assert.equal(context.getString(handle), text);
        handle.dispose();
      }
      const invalid = newGuestString(context, Buffer.from([0x61, 0xff, 0x62]));
      assert.equal(context.getString(invalid), 'a\ufffdb');
      invalid.dispose();
    } finally {
      context.dispose();
    }
  });
});
