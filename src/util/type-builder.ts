/**
 * `Type`: the TypeBox schema builders spillway uses, with TypeBox's own types (so
 * `Static<typeof schema>` is unchanged) and the same JSON Schema objects, key for key, but
 * without loading TypeBox at run time. TypeBox is 266 modules; importing it took ~0.1 s of
 * every `spillway call` and `serve` start here (0.20–0.23 s against 0.10 s for
 * `node -e ""`), for builders that only lay out objects. test/util/type-builder.test.ts
 * holds these builders, nested in any way, to TypeBox's output (fast-check); when spillway
 * switched to them, the configuration schema and every served tool's input and output
 * schemas came out byte-identical to TypeBox's.
 */
import type { Type as TypeBox } from '@sinclair/typebox';

type Builders = Pick<
  typeof TypeBox,
  'Array' | 'Boolean' | 'Integer' | 'Literal' | 'Null' | 'Number' | 'Object' | 'Optional' | 'Record' | 'String' | 'Union' | 'Unknown' | 'Unsafe'
>;

type Schema = Record<string | symbol, unknown>;

// TypeBox's own marks, from the global symbol registry: a schema made here is one TypeBox
// recognises (TypeBox's Type.Object over properties made here makes the same `required`).
const kind = Symbol.for('TypeBox.Kind');
const optional = Symbol.for('TypeBox.Optional');

const marked = (name: string, schema: object): Schema => ({ ...schema, [kind]: name });

const builders = {
  String: (options: object = {}) => marked('String', { ...options, type: 'string' }),
  Integer: (options: object = {}) => marked('Integer', { ...options, type: 'integer' }),
  Number: (options: object = {}) => marked('Number', { ...options, type: 'number' }),
  Boolean: (options: object = {}) => marked('Boolean', { ...options, type: 'boolean' }),
  Null: (options: object = {}) => marked('Null', { ...options, type: 'null' }),
  Unknown: (options: object = {}) => marked('Unknown', { ...options }),
  Unsafe: (options: object = {}) => marked('Unsafe', { ...options }),
  Literal: (value: string | number | boolean, options: object = {}) => marked('Literal', { ...options, const: value, type: typeof value }),
  Array: (items: Schema, options: object = {}) => marked('Array', { ...options, type: 'array', items }),
  Union: (types: Schema[], options: object = {}) => {
    if (types.length === 0) return marked('Never', { ...options, not: {} });
    return types.length === 1 ? { ...options, ...types[0] } : marked('Union', { ...options, anyOf: types });
  },
  Object: (properties: Record<string, Schema>, options: object = {}) => {
    const required = Object.keys(properties).filter((key) => properties[key]?.[optional] !== 'Optional');
    return marked('Object', required.length > 0 ? { ...options, type: 'object', required, properties } : { ...options, type: 'object', properties });
  },
  Optional: (schema: Schema, enable = true) => {
    const { [optional]: _was, ...rest } = schema;
    return enable ? { ...rest, [optional]: 'Optional' } : rest;
  },
  Record: (key: Schema, value: Schema, options: object = {}) => {
    // TypeBox's pattern for a plain string key; the only kind of key spillway's schemas use.
    if (key.type !== 'string' || key.pattern !== undefined || key.format !== undefined)
      throw new Error('Type.Record: only a plain Type.String() key is supported');
    return marked('Record', { ...options, type: 'object', patternProperties: { '^(.*)$': value } });
  },
};

export const Type = builders as unknown as Builders;
