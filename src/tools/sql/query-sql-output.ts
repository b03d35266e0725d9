import { Type } from '../../util/type-builder.js';

/** query_sql's value (the `result` of its structured content): counts and notes first, rows last. */
export const querySqlOutput = Type.Object({
  label: Type.Optional(Type.String()),
  total: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Rows the query matched, counted by the database; null when counting took too long.',
  }),
  totalAtLeast: Type.Optional(Type.Integer({ minimum: 0 })),
  returned: Type.Integer({ minimum: 0 }),
  limited: Type.Boolean({ description: 'true: fewer rows returned than matched (sql.maxRows).' }),
  summary: Type.String(),
  notes: Type.Optional(Type.Array(Type.String())),
  binaryEncoding: Type.Optional(Type.Record(Type.String(), Type.Literal('base64'))),
  columns: Type.Optional(Type.Array(Type.String(), { description: 'Given when no row came back.' })),
  rows: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});
