import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { delegationEnv, trickyBody } from './delegation-env.js';

const allowAll = { policy: { rules: { '*': 'allow' } } };

test('the args file is the body of the arguments; overrides merge deeply, replace arrays and win', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  const fileArgs = { title: 'from file', body: 'the body', labels: ['a', 'b', 'c'], meta: { keep: 1, nested: { x: 1, y: 2 } } };
  await env.put('args/issue.json', JSON.stringify(fileArgs));
  const result = await env.call({
    tool: 'sink',
    argsPath: 'args/issue.json',
    overrides: { title: 'mine', labels: ['z'], meta: { nested: { y: 3, z: null } } },
  });
  assert.equal(result.isError, false, result.text);
  assert.deepEqual(env.received[0]?.args, { title: 'mine', body: 'the body', labels: ['z'], meta: { keep: 1, nested: { x: 1, y: 3, z: null } } });
  assert.equal(result.tool, 'call_with_args_file');
  assert.equal(result.text, 'sink got 4 arguments');
});

test('overrides given as JSON text of an object are accepted', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/a.json', '{"title":"t","body":"b"}');
  const result = await env.call({ tool: 'sink', argsPath: 'args/a.json', overrides: '{"title":"from text"}' });
  assert.equal(result.isError, false, result.text);
  assert.equal(env.received[0]?.args.title, 'from text');
});

test('history keeps the short call, the record keeps the expanded arguments (capped, with the args file path)', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  const body = trickyBody(500 * 1024);
  await env.put('args/big.json', JSON.stringify({ title: 'big', body }));
  const result = await env.call({ tool: 'sink', argsPath: 'args/big.json', overrides: { labels: ['crash'] } });
  assert.equal(result.isError, false, result.text);
  assert.equal(env.received[0]?.args.body, body);
  assert.ok(!result.text.includes('libpthread'), 'the result the model reads does not carry the body');
  const [record] = await env.readRecords();
  assert.ok(record !== undefined);
  assert.deepEqual(record.arguments, { tool: 'sink', argsPath: 'args/big.json', overrides: { labels: ['crash'] } });
  const executed = record.executed as { tool: string; argsPath: string; arguments: { $capped: boolean; bytes: number; sha256: string } };
  assert.equal(executed.tool, 'sink');
  assert.equal(executed.argsPath, 'args/big.json');
  const expandedText = JSON.stringify({ title: 'big', body, labels: ['crash'] });
  assert.equal(executed.arguments.$capped, true);
  assert.equal(executed.arguments.bytes, Buffer.byteLength(expandedText));
  assert.equal(executed.arguments.sha256, createHash('sha256').update(expandedText).digest('hex'));
});

test('small expanded arguments are recorded whole, also when the target then fails', async (t) => {
  const env = await delegationEnv({ ...allowAll, policy: { rules: { sink: 'deny' } } });
  t.after(() => env.cleanup());
  await env.put('args/a.json', '{"title":"t","body":"b"}');
  const result = await env.call({ tool: 'sink', argsPath: 'args/a.json', overrides: { labels: ['x'] } });
  assert.equal(result.error?.code, 'PERMISSION_DENIED');
  assert.equal(env.received.length, 0);
  const [record] = await env.readRecords();
  assert.deepEqual((record?.executed as { arguments: unknown }).arguments, { title: 't', body: 'b', labels: ['x'] });
  assert.equal(record?.errorCode, 'PERMISSION_DENIED');
});

test('{"$file"} references: text as a string, JSON as its value, JSONL rows by index, inside arrays too', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/base.json', '{"title":"t","body":"placeholder"}');
  await env.put('results/0001-trace.txt', 'Traceback\n  line 1\nValueError: boom\n');
  await env.put('results/0002-issue.json', JSON.stringify({ issue: { body: 'issue body', labels: ['bug', 'p1'] } }));
  await env.put('results/0003-rows.jsonl', `${[0, 1, 2, 3, 4].map((id) => JSON.stringify({ id, body: `row ${id} body` })).join('\n')}\n`);
  const result = await env.call({
    tool: 'sink',
    argsPath: 'args/base.json',
    overrides: {
      body: { $file: 'results/0001-trace.txt' },
      labels: [{ $file: 'results/0002-issue.json', $pointer: '/issue/labels/1' }, { $file: 'results/0003-rows.jsonl', $pointer: '/3/body' }, 'literal'],
      meta: { issue: { $file: 'results/0002-issue.json' }, row: { $file: 'results/0003-rows.jsonl', $pointer: '/4' } },
      rows: { $file: 'results/0003-rows.jsonl' },
    },
  });
  assert.equal(result.isError, false, result.text);
  const args = env.received[0]?.args;
  assert.equal(args?.body, 'Traceback\n  line 1\nValueError: boom\n');
  assert.deepEqual(args?.labels, ['p1', 'row 3 body', 'literal']);
  assert.deepEqual(args?.meta, { issue: { issue: { body: 'issue body', labels: ['bug', 'p1'] } }, row: { id: 4, body: 'row 4 body' } });
  assert.equal((args?.rows as unknown[]).length, 5);
});

test('a reference replaces an object from the args file instead of merging into it', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/base.json', '{"title":"t","body":"b","meta":{"from":"file","old":true}}');
  await env.put('results/0001-meta.json', '{"from":"reference"}');
  await env.call({ tool: 'sink', argsPath: 'args/base.json', overrides: { meta: { $file: 'results/0001-meta.json' } } });
  assert.deepEqual(env.received[0]?.args.meta, { from: 'reference' });
});

test('a JSONL spill of an object around a table is rebuilt into that object and can be the args file', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  const rows = Array.from({ length: 40 }, (_, id) => ({ id, text: `row ${id} with some padding to pass the spill threshold` }));
  env.host.registerTool({
    name: 'fetch',
    description: 'rows',
    inputSchema: { type: 'object' },
    handler: () => ({ value: { title: 'from spill', body: 'spilled body', rows } }),
  });
  const fetched = await env.host.execute({ name: 'fetch', arguments: {} }, { conversationId: env.conversation });
  assert.equal(fetched.spill?.format, 'jsonl');
  const result = await env.call({ tool: 'sink', argsPath: fetched.spill?.path });
  assert.equal(result.isError, false, result.text);
  assert.deepEqual(env.received[0]?.args, { title: 'from spill', body: 'spilled body', rows });
});

test('bad input: an args file over args.maxBytes is refused before anything runs', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/huge.json', JSON.stringify({ title: 't', body: 'x'.repeat(1024 * 1024) }));
  const result = await env.call({ tool: 'sink', argsPath: 'args/huge.json' });
  assert.equal(result.error?.code, 'RESULT_TOO_LARGE');
  assert.match(result.text, /args\/huge\.json is 1,048,\d{3} bytes; an args file may be at most 1,048,576 bytes \(1\.0 MiB, args\.maxBytes\)/);
  assert.equal(env.received.length, 0);
});

test('bad input: an args file that is not JSON names the file and the parse error', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/broken.json', '{"title": "t", "body": ');
  const result = await env.call({ tool: 'sink', argsPath: 'args/broken.json' });
  assert.equal(result.error?.code, 'INVALID_JSON');
  assert.match(result.text, /args\/broken\.json is not valid JSON/);
  assert.equal(env.received.length, 0);
});

test('bad input: JSON that is not an object (array, string, null) is refused with a way out', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  for (const [name, content, kind] of [
    ['args/array.json', '[{"title":"t"}]', 'an array \\(1 items\\)'],
    ['args/string.json', '"just text"', 'a string'],
    ['args/null.json', 'null', 'null'],
  ] as const) {
    await env.put(name, content);
    const result = await env.call({ tool: 'sink', argsPath: name });
    assert.equal(result.error?.code, 'ARGS_NOT_OBJECT', name);
    assert.match(result.text, new RegExp(`holds ${kind}, not a JSON object`));
    assert.match(result.text, /\{"\$file": /);
  }
  assert.equal(env.received.length, 0);
});

test('bad input: prototype keys in the args file or in overrides are refused', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/proto.json', '{"title":"t","body":"b","__proto__":{"polluted":true}}');
  const fromFile = await env.call({ tool: 'sink', argsPath: 'args/proto.json' });
  assert.equal(fromFile.error?.code, 'INVALID_JSON');
  await env.put('args/ok.json', '{"title":"t","body":"b"}');
  const fromOverrides = await env.call({ tool: 'sink', argsPath: 'args/ok.json', overrides: JSON.parse('{"meta":{"__proto__":{"polluted":true}}}') });
  assert.equal(fromOverrides.error?.code, 'INVALID_ARGUMENTS');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(env.received.length, 0);
});

test('bad input: paths outside the sandbox are refused by the sandbox rules', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  const outside = path.join(env.dir, 'outside.json');
  await writeFile(outside, '{"title":"t","body":"secret"}');
  await env.put('args/placeholder.json', '{}');
  await symlink(outside, path.join(env.host.sandbox.conversation(env.conversation).dir, 'args', 'link.json'));
  const cases: [string, string][] = [
    ['../../outside.json', 'PATH_TRAVERSAL'],
    [outside, 'PATH_ABSOLUTE'],
    ['args/link.json', 'PATH_ESCAPES'],
    ['args/missing.json', 'PATH_NOT_FOUND'],
  ];
  for (const [argsPath, code] of cases) {
    const result = await env.call({ tool: 'sink', argsPath });
    assert.equal(result.error?.code, code, argsPath);
  }
  const viaReference = await env.call({ tool: 'sink', argsPath: 'args/placeholder.json', overrides: { body: { $file: 'args/link.json' } } });
  assert.equal(viaReference.error?.code, 'PATH_ESCAPES');
  assert.match(viaReference.text, /file reference at overrides\.body/);
  assert.equal(env.received.length, 0);
});

test('bad input: overrides that are not an object', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/a.json', '{"title":"t","body":"b"}');
  for (const overrides of [['title', 'x'], 42, true, '["not","an","object"]']) {
    const result = await env.call({ tool: 'sink', argsPath: 'args/a.json', overrides });
    assert.equal(result.error?.code, 'ARGS_NOT_OBJECT', JSON.stringify(overrides));
    assert.match(result.text, /overrides is .*, not a JSON object/);
  }
  const notJson = await env.call({ tool: 'sink', argsPath: 'args/a.json', overrides: '{title: x}' });
  assert.equal(notJson.error?.code, 'INVALID_JSON');
  assert.equal(env.received.length, 0);
});

test('bad input: an unknown target lists close names', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/a.json', '{"title":"t","body":"b"}');
  const result = await env.call({ tool: 'gh__create_isue', argsPath: 'args/a.json' });
  assert.equal(result.error?.code, 'TOOL_NOT_FOUND');
  assert.match(result.text, /Did you mean: gh__create_issue/);
  assert.ok((result.error?.details?.similar as string[]).includes('gh__create_issue'));
});

test('bad input: a target that fails its schema after the merge: every violation by JSON path, and the args file named', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/a.json', JSON.stringify({ title: 'x'.repeat(150), body: 'b', labels: ['ok', 7] }));
  const result = await env.call({ tool: 'sink', argsPath: 'args/a.json', overrides: { extra: true } });
  assert.equal(result.error?.code, 'INVALID_ARGUMENTS');
  assert.match(result.text, /arguments read from args\/a\.json/);
  assert.match(result.text, /\$\.title: must NOT have more than 100 characters/);
  assert.match(result.text, /\$\.labels\[1\]: must be string/);
  assert.match(result.text, /unknown property "extra"/);
  assert.equal(result.error?.details?.argsPath, 'args/a.json');
  assert.equal(env.received.length, 0);
});

test('bad input: call_with_args_file targeting itself is refused', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/self.json', JSON.stringify({ tool: 'sink', argsPath: 'args/self.json' }));
  const result = await env.call({ tool: 'call_with_args_file', argsPath: 'args/self.json' });
  assert.equal(result.error?.code, 'DELEGATION_LOOP');
  assert.equal(env.received.length, 0);
});

test('bad input: broken references name the file, the pointer and where they sit', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/a.json', '{"title":"t","body":"b"}');
  await env.put('results/0001-issue.json', '{"items":[{"body":"x"}]}');
  await env.put('results/0002-text.txt', 'plain');
  await env.put('results/0003-rows.jsonl', '{"id":0}\n{"id":1}\n');
  await env.put('results/0004-image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  const cases: [unknown, string, RegExp][] = [
    [{ body: { $file: 'results/9999-gone.json' } }, 'PATH_NOT_FOUND', /overrides\.body.*results\/9999-gone\.json/s],
    [
      { body: { $file: 'results/0001-issue.json', $pointer: '/items/3/body' } },
      'FILE_REF_INVALID',
      /nothing at "\/items\/3\/body": at "\/items\/3" index 3 is past the end/,
    ],
    [{ body: { $file: 'results/0001-issue.json', $pointer: '/items/0/title' } }, 'FILE_REF_INVALID', /no member "title" \(members: body\)/],
    [{ body: { $file: 'results/0001-issue.json', $pointer: 'items' } }, 'FILE_REF_INVALID', /must be empty or start with "\/"/],
    [{ body: { $file: 'results/0002-text.txt', $pointer: '/0' } }, 'FILE_REF_INVALID', /is a text file; pointers work in \.json and \.jsonl files/],
    [{ body: { $file: 'results/0003-rows.jsonl', $pointer: '/5/id' } }, 'FILE_REF_INVALID', /has 2 rows \(0–1\); row 5 does not exist/],
    [{ body: { $file: 'results/0004-image.png' } }, 'FILE_REF_INVALID', /binary file/],
    [{ labels: [{ $file: 'results/0002-text.txt', note: 'x' }] }, 'FILE_REF_INVALID', /overrides\.labels\[0\] has members other than/],
    [{ body: { $pointer: '/0' } }, 'FILE_REF_INVALID', /needs "\$file"/],
    [{ $file: 'results/0001-issue.json' }, 'FILE_REF_INVALID', /overrides itself cannot be a file reference/],
  ];
  for (const [overrides, code, message] of cases) {
    const result = await env.call({ tool: 'sink', argsPath: 'args/a.json', overrides });
    assert.equal(result.error?.code, code, JSON.stringify(overrides));
    assert.match(result.text, message);
  }
  assert.equal(env.received.length, 0);
});

test('bad input: expanded arguments over args.maxBytes are refused, naming the largest parts and their sources', async (t) => {
  const env = await delegationEnv(allowAll);
  t.after(() => env.cleanup());
  await env.put('args/a.json', '{"title":"t","body":"b"}');
  await env.put('results/0001-a.txt', 'a'.repeat(700 * 1024));
  // The referenced file fits args.maxBytes on its own; the model's own 400 KiB on top do not.
  const result = await env.call({
    tool: 'sink',
    argsPath: 'args/a.json',
    overrides: { body: { $file: 'results/0001-a.txt' }, meta: { more: 'b'.repeat(400 * 1024) } },
  });
  assert.equal(result.error?.code, 'RESULT_TOO_LARGE');
  assert.match(result.text, /The expanded arguments are 1\.1 MiB/);
  assert.match(result.text, /body: 700 KiB \(from results\/0001-a\.txt\)/);
  assert.equal(env.received.length, 0);
});
