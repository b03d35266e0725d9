import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  byteRatioCounter,
  ContextGuard,
  counterForModel,
  createMessageGuard,
  guardPlainMessages,
  hostSpiller,
  lastTurnStart,
  type PlainMessage,
  type ResultSpiller,
} from '../../src/context-guard/index.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

/** One step of an agent loop: the assistant calls a tool, the tool answers. */
function step(id: string, tool: string, result: unknown): PlainMessage[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: tool, input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: tool, result }] },
  ];
}

/** A result as spillway's host returns it: a prefix, then the reference sentence. */
function spilledText(id: string, chars: number): string {
  return `${'x'.repeat(chars)}\n\n[spillway] Saved to results/${id}-query.jsonl (JSONL table, 100 rows × 2 columns, 9 KiB, expires 2026-12-08T00:00:00.000Z). Columns: a, b.`;
}

const exactBytes = byteRatioCounter(1);

test('under the budget the guard returns the very same messages and reports "none"', async () => {
  const messages: PlainMessage[] = [{ role: 'user', content: 'hi' }, ...step('c1', 'query', spilledText('0001', 100))];
  const guard = createMessageGuard({ contextWindow: 100_000, counter: exactBytes });
  const { messages: out, report } = await guard(messages);
  assert.equal(out, messages);
  assert.equal(report.action, 'none');
  assert.equal(report.budget, 85_000);
});

test('past the budget: largest first, then oldest; replaced by the reference the result already holds; the last turn untouched', async () => {
  const messages: PlainMessage[] = [
    { role: 'user', content: 'analyse' },
    ...step('c1', 'query', spilledText('0001', 3000)),
    ...step('c2', 'query', spilledText('0002', 5000)),
    ...step('c3', 'query', spilledText('0003', 3000)),
    ...step('c4', 'query', spilledText('0004', 6000)),
  ];
  const reports: unknown[] = [];
  const guard = new ContextGuard({ contextWindow: 13_000, share: 0.85, counter: exactBytes, onReport: (report) => reports.push(report) });
  const { messages: out, report } = await guardPlainMessages(guard, messages);
  assert.equal(report.action, 'replaced');
  // c4 is the last turn; c2 is the largest earlier result, then c1 (older than c3, same size).
  assert.deepEqual(
    report.replaced.map((entry) => entry.toolCallId),
    ['c2', 'c1'],
  );
  assert.ok(report.tokensAfter <= report.budget);
  assert.deepEqual(out.slice(7), messages.slice(7));
  assert.equal(out[7], messages[7]);
  const replaced = (out[4]?.content as { result: string }[])[0]?.result ?? '';
  assert.match(replaced, /^\[spillway\] The result of query \(call c2\) was taken out of the prompt/);
  assert.match(replaced, /\[spillway\] Saved to results\/0002-query\.jsonl \(JSONL table/);
  assert.equal(report.replaced[0]?.path, 'results/0002-query.jsonl');
  assert.equal(report.replaced[0]?.spilled, false);
  assert.deepEqual(out[6], messages[6], 'c3 was not needed');
  assert.equal(reports.length, 1);
});

test('a budget that no replacement can meet (the last turn alone is too big) is reported and the prompt left unchanged', async () => {
  const messages: PlainMessage[] = [
    { role: 'user', content: 'go' },
    ...step('c1', 'query', spilledText('0001', 2000)),
    ...step('c2', 'query', 'y'.repeat(20_000)),
  ];
  const guard = createMessageGuard({ contextWindow: 10_000, counter: exactBytes });
  const { messages: out, report } = await guard(messages);
  assert.equal(report.action, 'over-budget');
  assert.equal(out, messages);
  assert.deepEqual(report.replaced, []);
  assert.match(report.message, /last turn, which the guard never changes\. The prompt was left unchanged\./);
});

test('a result without a reference is spilled first, once; the same input gives the same bytes on every call', async () => {
  let spills = 0;
  const spill: ResultSpiller = async (result) => {
    spills += 1;
    return { path: `results/000${spills}-${result.toolName}.json`, format: 'json', bytes: 1234 };
  };
  const messages: PlainMessage[] = [{ role: 'user', content: 'go' }, ...step('c1', 'fetch', { big: 'z'.repeat(5000) }), ...step('c2', 'fetch', { small: 1 })];
  const guard = createMessageGuard({ contextWindow: 5000, counter: exactBytes, spill });
  const first = await guard(messages);
  const second = await guard(messages);
  assert.equal(first.report.action, 'replaced');
  assert.equal(first.report.replaced[0]?.spilled, true);
  assert.equal(spills, 1);
  assert.equal(JSON.stringify(second.messages), JSON.stringify(first.messages));
  assert.match(JSON.stringify(first.messages), /Saved to results\/0001-fetch\.json \(JSON, 1\.2 KiB\)/);

  const withoutSpiller = createMessageGuard({ contextWindow: 5000, counter: exactBytes });
  assert.equal((await withoutSpiller(messages)).report.action, 'over-budget');
});

test('hostSpiller writes the full result into the conversation, and the replacement carries no clock', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(500);
  const messages: PlainMessage[] = [{ role: 'user', content: 'go' }, ...step('call-7', 'crm_search', rows), { role: 'user', content: 'and now?' }];
  const guard = createMessageGuard({ contextWindow: 20_000, spill: hostSpiller(env.host, { conversationId: 'guarded' }) });
  const { messages: out, report } = await guard(messages);
  assert.equal(report.action, 'replaced');
  assert.equal(report.counter, 'bytes/1.84');
  const entry = report.replaced[0];
  assert.equal(entry?.path, 'results/0001-crm_search.jsonl');
  const text = (out[2]?.content as { result: string }[])[0]?.result ?? '';
  assert.match(text, /Saved to results\/0001-crm_search\.jsonl \(JSONL table, 500 rows × 5 columns, [\d.]+ KiB\)\. Columns: id, name, amount, active, note\./);
  assert.doesNotMatch(text, /expires|\d{4}-\d\d-\d\dT/);
  const file = await readFile(path.join(env.host.sandbox.conversation('guarded').dir, 'results', '0001-crm_search.jsonl'), 'utf8');
  assert.deepEqual(
    file
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown),
    rows,
  );

  // A new guard (a restarted process) finds the file it wrote by call id: the same bytes, no second file.
  const restarted = createMessageGuard({ contextWindow: 20_000, spill: hostSpiller(env.host, { conversationId: 'guarded' }) });
  const again = await restarted(messages);
  assert.equal(JSON.stringify(again.messages), JSON.stringify(out));
  const files = await readdir(path.join(env.host.sandbox.conversation('guarded').dir, 'results'));
  assert.deepEqual(
    files.filter((name) => !name.endsWith('.meta.json')),
    ['0001-crm_search.jsonl'],
  );
});

test("tokens are counted with the model's tokenizer where it is known, else 1.84 bytes a token", async () => {
  assert.equal((await counterForModel('gpt-4o-mini')).name, 'o200k_base');
  assert.equal((await counterForModel('gpt-4-turbo')).name, 'cl100k_base');
  assert.equal((await counterForModel('claude-sonnet-4')).name, 'bytes/1.84');
  assert.equal((await counterForModel(undefined)).name, 'bytes/1.84');
  assert.equal(byteRatioCounter().count('x'.repeat(184)), 100);
  assert.throws(() => new ContextGuard({ contextWindow: 0 }), /contextWindow/);
  assert.throws(() => new ContextGuard({ contextWindow: 10, share: 1.5 }), /share/);
});

const messageArbitrary: fc.Arbitrary<PlainMessage[]> = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('user' as const), text: fc.string({ maxLength: 200 }) }),
      fc.record({
        kind: fc.constant('step' as const),
        tool: fc.constantFrom('query', 'fetch', 'search'),
        size: fc.integer({ min: 0, max: 4000 }),
        referenced: fc.boolean(),
        json: fc.boolean(),
      }),
    ),
    { minLength: 1, maxLength: 25 },
  )
  .map((items) =>
    items.flatMap((item, index): PlainMessage[] => {
      if (item.kind === 'user') return [{ role: 'user', content: item.text }];
      const id = `c${index}`;
      const body = item.referenced ? spilledText(String(index).padStart(4, '0'), item.size) : 'r'.repeat(item.size);
      return step(id, item.tool, item.json ? { body } : body);
    }),
  );

test('property: the output is deterministic and the last turn is never changed', async () => {
  const spill: ResultSpiller = async (result) => ({ path: `results/${result.toolCallId}-${result.toolName}.json`, format: 'json', bytes: 100 });
  await fc.assert(
    fc.asyncProperty(
      messageArbitrary,
      fc.integer({ min: 500, max: 40_000 }),
      fc.double({ min: 0.3, max: 1, noNaN: true }),
      async (messages, contextWindow, share) => {
        const options = { contextWindow, share, counter: exactBytes, spill };
        const snapshot = JSON.stringify(messages);
        const first = await createMessageGuard(options)(messages);
        const again = await createMessageGuard(options)(messages);
        assert.equal(JSON.stringify(again.messages), JSON.stringify(first.messages));
        assert.deepEqual(again.report, first.report);
        assert.equal(JSON.stringify(messages), snapshot, 'the input is never mutated');
        const start = lastTurnStart(messages.map((message) => message.role));
        assert.equal(first.messages.length, messages.length);
        for (let index = start; index < messages.length; index += 1) assert.equal(first.messages[index], messages[index]);
        if (first.report.action === 'replaced') assert.ok(first.report.tokensAfter <= first.report.budget);
        else assert.equal(first.messages, messages);
        // Only tool results change, and a replaced one names its file.
        first.messages.forEach((message, index) => {
          if (message === messages[index]) return;
          assert.equal(message.role, 'tool');
          assert.match(String((message.content as { result: unknown }[])[0]?.result), /\[spillway\] Saved to results\//);
        });
      },
    ),
    { numRuns: 200 },
  );
});
