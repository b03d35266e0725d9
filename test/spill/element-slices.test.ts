import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { elementSlices } from '../../src/spill/element-slices.js';

test('slices are the exact text of each element, without the surrounding whitespace', () => {
  assert.deepEqual(elementSlices(' [ {"a": 1} , "x,]" ,3, [4,[5]] ,null, {\n"b":2} ] '), ['{"a": 1}', '"x,]"', '3', '[4,[5]]', 'null', undefined]);
  assert.deepEqual(elementSlices('[]'), []);
  assert.deepEqual(elementSlices('{"n":1,"rows":[{"a":"\\"}"}],"m":{}}', 'rows'), ['{"a":"\\"}"}']);
  assert.deepEqual(elementSlices('{"rows":[1],"rows":[2,3]}', 'rows'), ['2', '3'], 'the last duplicate key is the one JSON.parse keeps');
  assert.equal(elementSlices('{"a":1}'), undefined);
  assert.equal(elementSlices('[1,2]', 'rows'), undefined);
  assert.equal(elementSlices('{"rows":{}}', 'rows'), undefined);
});

test('property: for any array (any indentation, optionally inside an object), each slice parses to its element', () => {
  fc.assert(
    fc.property(
      fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 12 }),
      fc.constantFrom(undefined, 0, 1, 2, '\t', ' \r\n'),
      fc.option(
        fc.dictionary(
          fc.string({ maxLength: 4 }).filter((key) => key !== 'rows' && key !== '__proto__'),
          fc.jsonValue({ maxDepth: 2 }),
          { maxKeys: 3 },
        ),
      ),
      (elements, indent, envelope) => {
        const value = envelope === null ? elements : { ...envelope, rows: elements };
        const source = JSON.stringify(value, null, indent);
        const slices = elementSlices(source, envelope === null ? undefined : 'rows');
        assert.ok(slices !== undefined);
        assert.equal(slices.length, elements.length);
        for (const [index, slice] of slices.entries()) {
          const element: unknown = JSON.parse(JSON.stringify(elements[index]));
          if (slice === undefined) {
            // Only a pretty-printed container spans lines.
            assert.ok(typeof indent === 'string' || (indent ?? 0) > 0);
            assert.ok(typeof element === 'object' && element !== null);
            continue;
          }
          assert.deepEqual(JSON.parse(slice), element);
          assert.equal(slice, slice.trim());
          assert.ok(!slice.includes('\n') && !slice.includes('\r'));
        }
      },
    ),
    { numRuns: 1000 },
  );
});

test('rows with nested values, escapes, line breaks or a huge escaped string still slice exactly', () => {
  const rows = [{ a: { b: [1, { c: '}' }] } }, { q: 'say "hi" \\ ]' }, { u: 'é\u2028𝄞' }, { big: '"'.repeat(2_000_000) }, { z: 1 }];
  const source = JSON.stringify(rows);
  assert.deepEqual(
    elementSlices(source)?.map((slice) => JSON.parse(slice!)),
    rows,
  );
  const pretty = `[${JSON.stringify(rows[0])},\n${JSON.stringify(rows[1], null, 1)}]`;
  assert.deepEqual(elementSlices(pretty), [JSON.stringify(rows[0]), undefined]);
});
