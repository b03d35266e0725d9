import assert from 'node:assert/strict';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Host, type SpillWritten } from '../../src/host/host.js';
import { SandboxRoot } from '../../src/sandbox/index.js';
import { tempConfig } from '../helpers/temp-host.js';

/** A bare host (no built-in tools, no retention) with one tool returning `size` characters. */
async function bareHost(t: import('node:test').TestContext, overrides: Record<string, unknown> = {}) {
  const { config, dir } = await tempConfig(overrides);
  const host = new Host({ config, sandbox: await SandboxRoot.open(config.sandbox.root) });
  t.after(() => host.close());
  t.after(() => rm(dir, { recursive: true, force: true }));
  host.registerTool({ name: 'text', description: 'text', inputSchema: { type: 'object' }, handler: (args) => ({ value: 'x'.repeat(Number(args.size)) }) });
  return host;
}

test('an after-spill hook sees the files a call just wrote, with the configuration it ran under; inline results do not call it', async (t) => {
  const host = await bareHost(t);
  const seen: SpillWritten[] = [];
  host.onAfterSpill(async (spill) => {
    // The files exist when the hook runs: a quota may measure them.
    for (const ref of spill.files) await stat(path.join(spill.sandbox.dir, ref.path));
    seen.push(spill);
  });
  await host.execute({ name: 'text', arguments: { size: 10 } }, { conversationId: 'c1' });
  assert.equal(seen.length, 0, 'nothing was written for an inline result');
  const result = await host.execute({ name: 'text', arguments: { size: 5000 } }, { conversationId: 'c1' });
  assert.equal(seen.length, 1);
  assert.deepEqual(
    seen[0]?.files.map((ref) => ref.path),
    [result.spill?.path],
  );
  assert.equal(seen[0]?.sandbox.id, 'c1');
  assert.equal(seen[0]?.config, host.config);
});

test('a hook that throws is logged and never fails the call; hooks run in order and can be removed', async (t) => {
  const host = await bareHost(t);
  const order: string[] = [];
  host.onAfterSpill(() => {
    order.push('first');
    throw new Error('quota backend down');
  });
  const removeSecond = host.onAfterSpill(() => {
    order.push('second');
  });
  const result = await host.execute({ name: 'text', arguments: { size: 5000 } }, { conversationId: 'c1' });
  assert.equal(result.isError, false);
  assert.ok(result.spill !== undefined);
  assert.deepEqual(order, ['first', 'second']);
  removeSecond();
  await host.execute({ name: 'text', arguments: { size: 5000 } }, { conversationId: 'c1' });
  assert.deepEqual(order, ['first', 'second', 'first']);
});

test('a bare host has no disk quota of its own: retention adds it through the hook (createHost does)', async (t) => {
  const host = await bareHost(t, { retention: { maxBytes: 0, maxBytesPerConversation: 6000 } });
  const first = await host.execute({ name: 'text', arguments: { size: 5000 } }, { conversationId: 'c1' });
  await host.execute({ name: 'text', arguments: { size: 5000 } }, { conversationId: 'c1' });
  // Without the hook nothing evicts the first spill, although the conversation is over its quota.
  await stat(path.join(host.sandbox.conversation('c1').dir, first.spill?.path ?? 'missing'));
});
