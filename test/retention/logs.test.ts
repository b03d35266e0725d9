import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHost } from '../../src/runtime/create-host.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { tempConfig } from '../helpers/temp-host.js';
import { day, seedFile } from './seed-sandbox.js';
import { capturedLogger } from '../helpers/captured-logger.js';

test('every log line of a call carries callId and conversationId, and no argument value or file content at info level', async (t) => {
  const secretArgument = 'ARGUMENT-VALUE-7f3a9c';
  const secretContent = 'RESULT-CONTENT-51e0b2';
  const { config, dir } = await tempConfig({ retention: { maxBytes: 0, maxBytesPerConversation: 6000 } });
  const capture = capturedLogger({ service: 'spillway' });
  const host = await createHost({ config, logger: capture.logger });
  t.after(async () => {
    await host.close();
    const { rm } = await import('node:fs/promises');
    await rm(dir, { recursive: true, force: true });
  });
  host.registerTool({
    name: 'lookup',
    description: 'lookup',
    inputSchema: { type: 'object', properties: { customer: { type: 'string' } } },
    handler: (args, context) => {
      context.logger.info({ rows: 40 }, 'looked up');
      context.logger.debug({ args }, 'arguments (debug only)');
      return { value: Array.from({ length: 40 }, (_, index) => ({ index, customer: args.customer, note: `${secretContent} ${'y'.repeat(60)}` })) };
    },
  });
  // Three calls: the third passes the per-conversation quota, so eviction lines are logged inside a call too.
  const callIds: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const result = await host.execute({ name: 'lookup', arguments: { customer: secretArgument }, id: `call-${i}` }, { conversationId: 'conv-logs' });
    assert.equal(result.isError, false);
    assert.ok(result.spill !== undefined);
    callIds.push(result.callId);
  }
  await new Promise((resolve) => setImmediate(resolve));
  const callLines = capture.lines.filter(
    (line) => line.callId !== undefined || line.msg === 'tool call' || line.msg === 'looked up' || String(line.msg).startsWith('disk quota'),
  );
  assert.ok(callLines.length >= 7, `expected the call lines, got ${JSON.stringify(capture.lines)}`);
  assert.ok(
    callLines.some((line) => String(line.msg).startsWith('disk quota')),
    'an eviction was logged during a call',
  );
  for (const line of callLines) {
    assert.ok(callIds.includes(String(line.callId)), `no callId: ${JSON.stringify(line)}`);
    assert.equal(line.conversationId, 'conv-logs');
  }
  for (const line of capture.raw) {
    assert.ok(!line.includes(secretArgument), `an argument value was logged: ${line}`);
    assert.ok(!line.includes(secretContent), `file content was logged: ${line}`);
  }
});

test('the sweep logs its report (counts, never file contents) as one structured line', async (t) => {
  const { tempSandbox } = await import('./seed-sandbox.js');
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  await seedFile(root, 'c/results/0001-q.jsonl', 9, nowMs, 'SECRET-ROW-CONTENT\n');
  const capture = capturedLogger({ service: 'spillway' });
  await sweepSandbox({ root, olderThanMs: 7 * day, logger: capture.logger, now: () => new Date(nowMs) });
  const finished = capture.lines.find((line) => line.msg === 'retention sweep finished');
  assert.ok(finished !== undefined);
  assert.deepEqual(finished.deleted, { files: 1, bytes: 19 });
  for (const key of ['scanned', 'kept', 'skipped', 'errors', 'durationMs', 'quotaEvictions', 'conversations']) assert.ok(key in finished, key);
  assert.ok(!capture.raw.some((line) => line.includes('SECRET-ROW-CONTENT')));
});
