import type { SchemaOptions, Static, TSchema, TUnsafe } from '@sinclair/typebox';
import { Type } from './type-builder.js';

// TypeBox writes a union as `anyOf` of `const`s and a record as
// `patternProperties`. These three builders keep the JSON Schema keywords our
// schemas have always used (`enum`, `oneOf`, `additionalProperties`), so ajv's
// messages, the MCP tool list and the generated docs read as before, while
// `Static<>` still gives the exact TypeScript type.

/** `{"enum": [...]}`, typed as the union of its values. */
export function enumOf<const Values extends readonly (string | number)[]>(values: Values, options: SchemaOptions = {}): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, enum: [...values] });
}

/** `{"oneOf": [...]}`: exactly one alternative must match. */
export function oneOf<const Alternatives extends readonly TSchema[]>(
  alternatives: Alternatives,
  options: SchemaOptions = {},
): TUnsafe<Static<Alternatives[number]>> {
  return Type.Unsafe<Static<Alternatives[number]>>({ ...options, oneOf: [...alternatives] });
}

/** An object keyed by any name, each value matching `value`: `{"type": "object", "additionalProperties": value}`. */
export function recordOf<Value extends TSchema>(value: Value, options: SchemaOptions = {}): TUnsafe<Record<string, Static<Value>>> {
  return Type.Unsafe<Record<string, Static<Value>>>({ type: 'object', ...options, additionalProperties: value });
}
