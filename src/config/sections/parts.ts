import { Type, type SchemaOptions, type TLiteral, type TObject, type TProperties } from '@sinclair/typebox';
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
