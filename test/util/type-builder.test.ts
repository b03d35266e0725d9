import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type as TypeBox } from '@sinclair/typebox';
import fc from 'fast-check';
import { Type } from '../../src/util/type-builder.js';

/** A schema as a recipe, built once with TypeBox and once with spillway's builder. */
type Recipe =
  | { kind: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Null' | 'Unknown'; options: Record<string, unknown> }
  | { kind: 'Unsafe'; options: Record<string, unknown> }
  | { kind: 'Literal'; value: string | number | boolean; options: Record<string, unknown> }
  | { kind: 'Array'; items: Recipe; options: Record<string, unknown> }
  | { kind: 'Union'; types: Recipe[]; options: Record<string, unknown> }
  | { kind: 'Record'; value: Recipe; options: Record<string, unknown> }
  | { kind: 'Object'; properties: [string, Recipe, boolean][]; options: Record<string, unknown> };

const options = fc.dictionary(
  fc.constantFrom('description', 'default', 'minimum', 'maximum', 'maxLength', 'minItems', 'additionalProperties', 'pattern', 'examples', 'title'),
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })),
  { maxKeys: 3 },
);

const { recipe } = fc.letrec<{ recipe: Recipe }>((tie) => ({
  recipe: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constantFrom('String', 'Integer', 'Number', 'Boolean', 'Null', 'Unknown', 'Unsafe'), options }) as fc.Arbitrary<Recipe>,
    fc.record({ kind: fc.constant('Literal' as const), value: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean()), options }),
    fc.record({ kind: fc.constant('Array' as const), items: tie('recipe'), options }),
    fc.record({ kind: fc.constant('Union' as const), types: fc.array(tie('recipe'), { minLength: 1, maxLength: 3 }), options }),
    fc.record({ kind: fc.constant('Record' as const), value: tie('recipe'), options }),
    fc.record({
      kind: fc.constant('Object' as const),
      properties: fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), tie('recipe'), fc.boolean()), {
        selector: ([name]) => name,
        maxLength: 4,
      }),
      options,
    }),
  ),
}));

interface Builder {
  [name: string]: (...args: never[]) => unknown;
}

function build(recipe: Recipe, builder: Builder): unknown {
  const call = (name: string, ...args: unknown[]) => (builder[name] as (...args: unknown[]) => unknown)(...args);
  switch (recipe.kind) {
    case 'Literal':
      return call('Literal', recipe.value, recipe.options);
    case 'Array':
      return call('Array', build(recipe.items, builder), recipe.options);
    case 'Union':
      return call(
        'Union',
        recipe.types.map((type) => build(type, builder)),
        recipe.options,
      );
    case 'Record':
      return call('Record', call('String'), build(recipe.value, builder), recipe.options);
    case 'Object':
      return call(
        'Object',
        Object.fromEntries(recipe.properties.map(([name, type, optional]) => [name, optional ? call('Optional', build(type, builder)) : build(type, builder)])),
        recipe.options,
      );
    default:
      return call(recipe.kind, recipe.options);
  }
}

test("property: every builder gives TypeBox's JSON Schema, key for key, nested in any way", () => {
  fc.assert(
    fc.property(recipe, (schema) => {
      assert.equal(JSON.stringify(build(schema, Type as unknown as Builder)), JSON.stringify(build(schema, TypeBox as unknown as Builder)));
    }),
    { numRuns: 300 },
  );
});

test('Optional twice is optional once, and Optional(schema, false) is required again, as in TypeBox', () => {
  for (const builder of [Type, TypeBox] as const) {
    const schema = builder.Object({ a: builder.Optional(builder.Optional(builder.String())), b: builder.Optional(builder.Optional(builder.String()), false) });
    assert.equal(JSON.stringify(schema), '{"type":"object","required":["b"],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}');
  }
});

test("TypeBox recognises the schemas made here: its Type.Object over their properties makes the same 'required'", () => {
  const mixed = TypeBox.Object({ a: Type.Optional(Type.String()), b: Type.Integer(), c: Type.Optional(Type.Array(Type.String())) });
  const pure = TypeBox.Object({ a: TypeBox.Optional(TypeBox.String()), b: TypeBox.Integer(), c: TypeBox.Optional(TypeBox.Array(TypeBox.String())) });
  assert.equal(JSON.stringify(mixed), JSON.stringify(pure));
});

test('a Record key other than a plain string is refused at once (spillway never builds one)', () => {
  assert.throws(() => Type.Record(Type.String({ pattern: '^a' }), Type.Integer()), /plain Type.String\(\) key/);
});
