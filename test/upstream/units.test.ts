import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { reconnectDelay } from '../../src/upstream/backoff.js';
import { normalizeUpstreamResult } from '../../src/upstream/normalize-result.js';
import { StdioTransport } from '../../src/upstream/stdio-transport.js';
import { exposedToolName } from '../../src/upstream/upstream-tool.js';

const parseMessage = (value: unknown): JSONRPCMessage => JSONRPCMessageSchema.parse(value);

function feed(transport: StdioTransport, chunk: Buffer): void {
  (transport as unknown as { receive(chunk: Buffer): void }).receive(chunk);
}

test('stdio framing: any split of a stream of messages into chunks yields the same messages, in order', () => {
  const message = fc.record({
    jsonrpc: fc.constant('2.0' as const),
    method: fc.constantFrom('a', 'notifications/x'),
    params: fc.record({ text: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
  });
  fc.assert(
    fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (messages, cuts, crlf) => {
      const transport = new StdioTransport({ command: 'unused', args: [], env: {}, maxMessageBytes: 1 << 20, parseMessage });
      const received: JSONRPCMessage[] = [];
      transport.onmessage = (received_) => received.push(received_);
      const bytes = Buffer.from(messages.map((entry) => `${JSON.stringify(entry)}${crlf ? '\r\n' : '\n'}`).join(''));
      const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
      let start = 0;
      for (const point of [...points, bytes.length]) {
        feed(transport, bytes.subarray(start, point));
        start = point;
      }
      assert.deepEqual(received, JSON.parse(JSON.stringify(messages)));
    }),
  );
});

test('stdio framing: a message over maxMessageBytes is reported, not buffered without bound', () => {
  const transport = new StdioTransport({ command: 'unused', args: [], env: {}, maxMessageBytes: 1024, parseMessage });
  const errors: string[] = [];
  transport.onerror = (error) => errors.push(error.message);
  feed(transport, Buffer.alloc(600, 0x61));
  feed(transport, Buffer.alloc(600, 0x61));
  assert.equal(errors.length, 1);
  assert.match(errors[0] ?? '', /at least 1200 bytes, over the cap of 1024 bytes \(upstream\.maxMessageBytes\)/);
  feed(transport, Buffer.from('aaaa"}\n{"jsonrpc":"2.0","method":"x"}\n'));
  assert.equal(errors.length, 1, 'the rest of the over-size line is not reported as a JSON error of its own');
});

test('reconnect back-off doubles from the minimum, stays within [min, max], whatever the jitter', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 0, max: 100_000 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (failures, min, extra, random) => {
        const max = min + extra;
        const delay = reconnectDelay(failures, min, max, () => random);
        assert.ok(delay >= min && delay <= max, `${delay} outside [${min}, ${max}]`);
      },
    ),
  );
  assert.equal(
    reconnectDelay(1, 1000, 60_000, () => 0.5),
    1000,
  );
  assert.equal(
    reconnectDelay(3, 1000, 60_000, () => 0.5),
    4000,
  );
  assert.equal(
    reconnectDelay(30, 1000, 60_000, () => 0.5),
    60_000,
  );
});

test('a structuredContent that only wraps the text block is dropped so text spills as lines; richer ones stay', () => {
  const text = 'line 1\nline 2\n';
  assert.deepEqual(normalizeUpstreamResult({ content: [{ type: 'text', text }], structuredContent: { content: text } }), { content: [{ type: 'text', text }] });
  const rich = { content: [{ type: 'text' as const, text }], structuredContent: { content: text, size: 2 } };
  assert.equal(normalizeUpstreamResult(rich), rich);
  const different = { content: [{ type: 'text' as const, text: 'summary' }], structuredContent: { content: text } };
  assert.equal(normalizeUpstreamResult(different), different);
});

test('upstream tool names are namespaced and made safe for MCP clients', () => {
  assert.equal(exposedToolName('github', 'create_issue'), 'github__create_issue');
  assert.equal(exposedToolName('fs', 'read file/v2'), 'fs__read_file_v2');
});
