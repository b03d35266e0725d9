import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

/** Two conversations on one host: the attacker's and a bystander's whose call must still complete. */
async function twoConversations(
  t: TestContext,
  overrides: Record<string, unknown> = {},
): Promise<TempHost & { put(conversation: string, relative: string, content: string): Promise<void> }> {
  const env = await tempHost({ demo: { rows: 200, seed: 7 }, ...overrides });
  t.after(() => env.cleanup());
  for (const conversation of ['attacker', 'bystander']) await env.host.sandbox.conversation(conversation).ensure();
  const put = async (conversation: string, relative: string, content: string) => {
    const file = path.join(env.host.sandbox.conversation(conversation).dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  };
  await put('bystander', 'results/0001-notes.txt', 'line one\nline two\n');
  return { ...env, put };
}

function bystanderCall(env: TempHost) {
  return env.host.execute({ name: 'read_file', arguments: { path: 'results/0001-notes.txt' } }, { conversationId: 'bystander' });
}

test('a pathological regex is matched in linear time (or refused with a coded reason) while another conversation is served', async (t) => {
  const env = await twoConversations(t);
  await env.put('attacker', 'results/0001-line.txt', `${'a'.repeat(200_000)}!\n`);
  const [nested, bystander] = await Promise.all([
    env.host.execute(
      { name: 'search_file', arguments: { path: 'results/0001-line.txt', pattern: '(a+)+$', regex: true, ignoreCase: true } },
      { conversationId: 'attacker' },
    ),
    bystanderCall(env),
  ]);
  assert.equal(nested.isError, false, nested.text);
  assert.match(nested.text, /No line of results\/0001-line\.txt .* matches/);
  assert.equal(bystander.isError, false);
  assert.match(bystander.text, /line two/);
  const backreference = await env.host.execute(
    { name: 'search_file', arguments: { path: 'results/0001-line.txt', pattern: '^(a|aa)+\\1$', regex: true } },
    { conversationId: 'attacker' },
  );
  assert.equal(backreference.error?.code, 'INVALID_ARGUMENTS');
  assert.match(backreference.text, /backreferences/);
});

test('a $file amplification is refused from stat, before reading, with a coded error, while another conversation is served', async (t) => {
  const env = await twoConversations(t, { args: { maxBytes: 1024 * 1024 } });
  await env.put('attacker', 'args/base.json', '{}');
  await env.put('attacker', 'results/0001-big.txt', 'x'.repeat(200 * 1024));
  env.host.registerTool({ name: 'sink', description: 'takes anything', inputSchema: { type: 'object' }, handler: () => ({ value: 'ok' }) });
  // 40 references to one 200 KiB file: each fits args.maxBytes alone, together they are 8 MiB.
  const overrides = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`part${index}`, { $file: 'results/0001-big.txt' }]));
  const [amplified, bystander] = await Promise.all([
    env.host.execute({ name: 'call_with_args_file', arguments: { tool: 'sink', argsPath: 'args/base.json', overrides } }, { conversationId: 'attacker' }),
    bystanderCall(env),
  ]);
  assert.equal(amplified.error?.code, 'RESULT_TOO_LARGE');
  assert.match(amplified.text, /together \(args\.maxBytes\)/);
  assert.equal(amplified.error?.details?.placedBytes, 5 * 200 * 1024, 'refused at the sixth reference, counted from stat');
  assert.equal(bystander.isError, false);
});

test('query_sql: a huge row is a coded error, many rows are cut at sql.maxBytes and say so, while another conversation is served', async (t) => {
  const env = await twoConversations(t, { sql: { source: { type: 'demo' }, maxRows: 100_000, maxBytes: 1024 * 1024, timeoutMs: 60_000 } });
  const [huge, bystander] = await Promise.all([
    env.host.execute({ name: 'query_sql', arguments: { sql: "SELECT printf('%.*c', 5000000, 'x') AS blob" } }, { conversationId: 'attacker' }),
    bystanderCall(env),
  ]);
  assert.equal(huge.error?.code, 'RESULT_TOO_LARGE', huge.text);
  assert.match(huge.text, /sql\.maxBytes/);
  assert.equal(bystander.isError, false);

  const enormous = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT zeroblob(900000000) AS blob' } }, { conversationId: 'attacker' });
  assert.equal(enormous.error?.code, 'RESULT_TOO_LARGE', enormous.text);

  const many = await env.host.execute(
    {
      name: 'query_sql',
      arguments: { sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 5000) SELECT i, printf('%.*c', 1000, 'x') AS pad FROM n" },
    },
    { conversationId: 'attacker' },
  );
  assert.equal(many.isError, false, many.text);
  const value = many.value as { returned: number; total: number; limited: boolean; cutAtBytes?: number; summary: string } | undefined;
  const meta = many.spill as { rows?: number } | undefined;
  const returned = value?.returned ?? meta?.rows ?? 0;
  assert.ok(returned > 0 && returned < 5000, `cut between 0 and 5000 rows (got ${returned})`);
  assert.match(many.text, /sql\.maxBytes/);
});
