import type { IntegerOptions, ObjectOptions, SchemaOptions, TInteger, TLiteral, TObject, TProperties } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import { enumOf, recordOf } from '../../util/schema-builders.js';

/** Building blocks the configuration sections share. */

export const decision = enumOf(['allow', 'deny', 'ask']);

export const closed = { additionalProperties: false } as const;

export const stringMap = recordOf(Type.String());

/** One member of a tagged union: an object whose `tag` key holds `value` (described by `tagOptions`), beside `properties`; no other keys. */
export function variant<Tag extends string, Value extends string, Properties extends TProperties>(
  tag: Tag,
  value: Value,
  properties: Properties,
  tagOptions: SchemaOptions = {},
): TObject<Record<Tag, TLiteral<Value>> & Properties> {
  const members = { [tag]: Type.Literal(value, tagOptions), ...properties } as Record<Tag, TLiteral<Value>> & Properties;
  return Type.Object(members, closed);
}

/** A section of the configuration: these keys and no others, described for docs/configuration.md. */
export function section<Properties extends TProperties>(description: string, properties: Properties, options: ObjectOptions = {}): TObject<Properties> {
  return Type.Object(properties, { ...closed, ...options, description });
}

/** An integer key at least `minimum`, `fallback` when absent (`more`: e.g. a maximum). */
export function integerKey(minimum: number, fallback: number, description: string, more: IntegerOptions = {}): TInteger {
  return Type.Integer({ minimum, ...more, default: fallback, description });
}
