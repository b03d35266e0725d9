import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { unwrapMcpResult, unwrapValue } from '../../src/spill/unwrap.js';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

test('structuredContent wins over the text blocks', () => {
  const result = unwrapMcpResult({ content: [{ type: 'text', text: 'summary' }], structuredContent: { rows: [{ a: 1 }] } });
  assert.deepEqual(result, { kind: 'json', value: { rows: [{ a: 1 }] }, binaries: [] });
});

test('a JSON payload serialized into a text block is that JSON, not an escaped string', () => {
  assert.deepEqual(unwrapMcpResult(text('  [{"a":1},{"a":2}]')).kind, 'json');
  assert.deepEqual(unwrapMcpResult(text('{"x":"y"}')), { kind: 'json', value: { x: 'y' }, binaries: [], source: '{"x":"y"}' });
});

test('invalid JSON inside a text block stays text, exactly', () => {
  for (const body of ['{"a":1,', '[1,2', '{not json}', '{"a":1} trailing']) {
    assert.deepEqual(unwrapMcpResult(text(body)), { kind: 'text', text: body, binaries: [] });
  }
});

test('a bare JSON scalar in text stays text', () => {
  assert.deepEqual(unwrapMcpResult(text('42')), { kind: 'text', text: '42', binaries: [] });
  assert.deepEqual(unwrapMcpResult(text('"quoted"')), { kind: 'text', text: '"quoted"', binaries: [] });
});

test('image, audio and blob blocks become binary parts; several JSON text blocks become an array', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
  const result = unwrapMcpResult({
    content: [
      { type: 'text', text: '{"a":1}' },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'x://b', blob: 'AQID', mimeType: 'application/pdf' } },
      { type: 'text', text: '[2]' },
    ],
  });
  assert.equal(result.kind, 'json');
  assert.deepEqual(result.kind === 'json' && result.value, [{ a: 1 }, [2]]);
  assert.deepEqual(
    result.binaries.map((part) => part.mimeType),
    ['image/png', 'audio/wav', 'application/pdf'],
  );
  assert.deepEqual(result.binaries[0]?.data, png);
});

test('an empty result is empty text', () => {
  assert.deepEqual(unwrapMcpResult({ content: [] }), { kind: 'text', text: '', binaries: [] });
  assert.deepEqual(unwrapValue(undefined), { kind: 'json', value: null, binaries: [] });
  assert.deepEqual(unwrapValue(''), { kind: 'text', text: '', binaries: [] });
});

test('property: any JSON container sent as text (any indentation) unwraps to the same value', () => {
  const container = fc.oneof(
    fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
  );
  fc.assert(
    fc.property(container, fc.constantFrom(undefined, 0, 2, '\t'), (value, indent) => {
      const result = unwrapMcpResult(text(JSON.stringify(value, null, indent)));
      assert.equal(result.kind, 'json');
      // JSON.parse(JSON.stringify(v)) is the reference: it also turns -0 into 0.
      assert.deepEqual(result.kind === 'json' && result.value, JSON.parse(JSON.stringify(value)));
    }),
  );
});

test('property: text that is not a JSON container comes back unchanged as text', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (body) => {
      let container = false;
      try {
        const parsed: unknown = JSON.parse(body);
        container = typeof parsed === 'object' && parsed !== null;
      } catch {
        container = false;
      }
      fc.pre(!container);
      assert.deepEqual(unwrapMcpResult(text(body)), { kind: 'text', text: body, binaries: [] });
    }),
    { numRuns: 2000 },
  );
});

test('property: structuredContent always wins, whatever the blocks say', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), fc.string(), (structured, body) => {
      const result = unwrapMcpResult({ content: [{ type: 'text', text: body }], structuredContent: structured });
      assert.deepEqual(result, { kind: 'json', value: structured, binaries: [] });
    }),
  );
});
