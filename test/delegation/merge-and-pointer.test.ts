import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergeOverrides } from '../../src/tools/delegation/deep-merge.js';
import { isJsonObject } from '../../src/util/is-json-object.js';
import { formatJsonPointer, lookupJsonPointer, parseJsonPointer } from '../../src/tools/delegation/json-pointer.js';

const plain = { isLeaf: () => false, place: async (value: unknown) => value };
const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });

test('merge: every override key wins; base keys the overrides do not name survive; inputs are not modified', async () => {
  await fc.assert(
    fc.asyncProperty(jsonObject, jsonObject, async (base, top) => {
      const baseText = JSON.stringify(base);
      const topText = JSON.stringify(top);
      const merged = await mergeOverrides(base, top, plain);
      assert.equal(JSON.stringify(base), baseText);
      assert.equal(JSON.stringify(top), topText);
      for (const key of Object.keys(base)) if (!Object.hasOwn(top, key)) assert.deepEqual(merged[key], base[key]);
      for (const [key, value] of Object.entries(top)) {
        if (isJsonObject(value) && isJsonObject(base[key])) {
          for (const [inner, innerValue] of Object.entries(value)) {
            if (!isJsonObject(innerValue)) assert.deepEqual((merged[key] as Record<string, unknown>)[inner], innerValue);
          }
        } else {
          assert.deepEqual(merged[key], value);
        }
      }
    }),
  );
});

test('merge: arrays replace, never concatenate; a "__proto__" key stays a plain member', async () => {
  const merged = await mergeOverrides({ list: [1, 2, 3], deep: { list: ['a'] } }, { list: [9], deep: { list: [] } }, plain);
  assert.deepEqual(merged, { list: [9], deep: { list: [] } });
  const hostile = await mergeOverrides({}, JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>, plain);
  assert.equal(Object.getPrototypeOf(hostile), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(hostile), ['__proto__']);
});

test('JSON Pointer: formatting and parsing are inverse for any segments (including "/" and "~")', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 8 }), { maxLength: 6 }), (segments) => {
      assert.deepEqual(parseJsonPointer(formatJsonPointer(segments)), segments);
    }),
  );
});

test('JSON Pointer: lookups find what is there and explain misses', () => {
  const document = { 'a/b': { '~x': [10, 20] }, list: [{ body: 'x' }] };
  assert.deepEqual(lookupJsonPointer(document, parseJsonPointer('/a~1b/~0x/1')), { found: true, value: 20 });
  assert.deepEqual(lookupJsonPointer(document, []), { found: true, value: document });
  const leading = lookupJsonPointer(document, parseJsonPointer('/list/01'));
  assert.equal(leading.found, false);
  const inherited = lookupJsonPointer(document, parseJsonPointer('/toString'));
  assert.equal(inherited.found, false, 'inherited members are not reachable');
  const scalar = lookupJsonPointer(document, parseJsonPointer('/list/0/body/length'));
  assert.deepEqual(scalar, { found: false, at: '/list/0/body/length', reason: 'the value there is string, which has no members' });
});
