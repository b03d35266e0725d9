import { Type } from '../../util/type-builder.js';

/** Output schemas of the analysis tools (the `result` of their structured content); query_files shares query_sql's. */
export { querySqlOutput as queryFilesOutput } from '../sql/query-sql-output.js';

export const inspectFileOutput = Type.Object({
  path: Type.String({ description: 'Relative to the conversation folder.' }),
  format: Type.String(),
  bytes: Type.Integer({ minimum: 0 }),
  rows: Type.Optional(Type.Integer({ minimum: 0 })),
  columns: Type.Optional(Type.Array(Type.String())),
  readCost: Type.Object({ tokens: Type.Integer({ minimum: 0 }), estimate: Type.String({ description: 'How the tokens were estimated.' }) }),
  profile: Type.Optional(
    Type.Object(
      { rows: Type.Integer({ minimum: 0 }), columns: Type.Array(Type.Record(Type.String(), Type.Unknown())), distinctCap: Type.Integer({ minimum: 0 }) },
      { description: "The spill's stored profile: per column type, nulls, min/max, distinct count, frequent values." },
    ),
  ),
  summarize: Type.Optional(
    Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'DuckDB SUMMARIZE per column, for files that are not spills.' }),
  ),
  expiresAt: Type.Optional(Type.String()),
  screening: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What screening found when the file was written: counts, secrets per kind, and each finding by kind and place (row/field or line), never the value.',
    }),
  ),
  summary: Type.String({ description: 'The same facts in words.' }),
});

export const buildChartOutput = Type.Object({
  message: Type.String({ description: 'What was drawn, for the model to relay.' }),
  png: Type.String({ description: 'The PNG under outputs/.' }),
  svg: Type.String({ description: 'The SVG under outputs/.' }),
  width: Type.Number({ minimum: 0 }),
  height: Type.Number({ minimum: 0 }),
  rows: Type.Integer({ minimum: 0 }),
  marks: Type.Integer({ minimum: 0 }),
  notes: Type.Optional(Type.Array(Type.String(), { description: 'Facts the caller should know, e.g. that the source carries redacted values.' })),
});
