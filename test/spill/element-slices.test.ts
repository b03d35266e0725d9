import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { elementSlices, hasLineBreak } from '../../src/spill/element-slices.js';

test('slices are the exact text of each element, without the surrounding whitespace', () => {
  assert.deepEqual(elementSlices(' [ {"a": 1} , "x,]" ,3, [4,[5]] ,null ] '), ['{"a": 1}', '"x,]"', '3', '[4,[5]]', 'null']);
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
      fc.option(fc.dictionary(fc.string({ maxLength: 4 }).filter((key) => key !== 'rows' && key !== '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })),
      (elements, indent, envelope) => {
        const value = envelope === null ? elements : { ...envelope, rows: elements };
        const source = JSON.stringify(value, null, indent);
        const slices = elementSlices(source, envelope === null ? undefined : 'rows');
        assert.ok(slices !== undefined);
        assert.deepEqual(slices.map((slice) => JSON.parse(slice)), JSON.parse(JSON.stringify(elements)));
        for (const slice of slices) {
          assert.equal(slice, slice.trim());
          if (indent === undefined || indent === 0) assert.equal(hasLineBreak(slice), false);
        }
      },
    ),
    { numRuns: 1000 },
  );
});
