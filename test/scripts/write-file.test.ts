import assert from 'node:assert/strict';
import { access, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

describe('write_file', () => {
  let env: TempHost;
  let dir: string;
  const write = (args: Record<string, unknown>) => env.host.execute({ name: 'write_file', arguments: args }, { conversationId: 'c1' });

  before(async () => {
    env = await tempHost({ args: { maxBytes: 4096 } });
    dir = path.join(env.host.sandbox.conversation('c1').dir);
  });
  after(() => env.cleanup());

  test('a JSON value is written pretty-printed under args/', async () => {
    const result = await write({ path: 'args/issue.json', content: { title: 'Crash on start', labels: ['bug'] } });
    assert.equal(result.isError, false, result.text);
    assert.deepEqual(result.value, { path: 'args/issue.json', bytes: 61 });
    assert.equal(await readFile(path.join(dir, 'args', 'issue.json'), 'utf8'), '{\n  "title": "Crash on start",\n  "labels": [\n    "bug"\n  ]\n}\n');
  });

  test('a string is written as is under scripts/, replacing an earlier version', async () => {
    await write({ path: 'scripts/a.js', content: 'return 1;' });
    const result = await write({ path: 'scripts/a.js', content: 'return 2;\n' });
    assert.equal(result.isError, false);
    assert.equal(await readFile(path.join(dir, 'scripts', 'a.js'), 'utf8'), 'return 2;\n');
    assert.deepEqual(
      (await readdir(path.join(dir, 'scripts'))).filter((name) => name.endsWith('.tmp')),
      [],
    );
  });

  test('nested folders under args/ are created', async () => {
    const result = await write({ path: 'args/deep/er/x.json', content: [1, 2] });
    assert.equal(result.isError, false);
    assert.equal(await readFile(path.join(dir, 'args', 'deep', 'er', 'x.json'), 'utf8'), '[\n  1,\n  2\n]\n');
  });

  for (const [target, code] of [
    ['results/0001-forged.jsonl', 'PATH_FOLDER_NOT_ALLOWED'],
    ['outputs/report.txt', 'PATH_FOLDER_NOT_ALLOWED'],
    ['errors/x.txt', 'PATH_FOLDER_NOT_ALLOWED'],
    ['args', 'PATH_FOLDER_NOT_ALLOWED'],
    ['../other/args/x.json', 'PATH_TRAVERSAL'],
    ['/tmp/x.json', 'PATH_ABSOLUTE'],
  ] as const) {
    test(`${target} is refused (${code})`, async () => {
      const result = await write({ path: target, content: 'x' });
      assert.equal(result.error?.code, code, result.text);
    });
  }

  test('content over args.maxBytes is refused, naming the cap', async () => {
    const result = await write({ path: 'args/big.json', content: { text: 'x'.repeat(5000) } });
    assert.equal(result.error?.code, 'RESULT_TOO_LARGE');
    assert.match(result.text, /args\.maxBytes/);
    await assert.rejects(access(path.join(dir, 'args', 'big.json')));
  });

  test('a .json file must hold valid JSON without prototype keys', async () => {
    const broken = await write({ path: 'args/broken.json', content: '{"title": ' });
    assert.equal(broken.error?.code, 'INVALID_JSON');
    assert.match(broken.text, /Pass the value itself as content/);
    const evil = await write({ path: 'args/evil.json', content: '{"__proto__": {"admin": true}}' });
    assert.equal(evil.error?.code, 'INVALID_JSON');
    await assert.rejects(access(path.join(dir, 'args', 'evil.json')));
  });
});
