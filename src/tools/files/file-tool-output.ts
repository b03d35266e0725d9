import { Type } from '../../util/type-builder.js';

/** Output schemas of the file-building tools (the `result` of their structured content). */

const outputColumn = Type.Union([Type.String(), Type.Object({ name: Type.String(), header: Type.String() })], {
  description: 'A column name, or {name, header} when the header differs.',
});

const message = Type.String({ description: 'What was built, for the model to relay.' });
const notes = Type.Optional(Type.Array(Type.String(), { description: 'Sort, range, renames and other facts the caller should know.' }));
const path = Type.String({ description: 'The file under outputs/, relative to the conversation folder.' });

export const exportTableOutput = Type.Object({
  message,
  path,
  format: Type.Union([Type.Literal('csv'), Type.Literal('xlsx'), Type.Literal('parquet')]),
  rows: Type.Integer({ minimum: 0 }),
  bytes: Type.Integer({ minimum: 0 }),
  columns: Type.Optional(Type.Array(outputColumn, { description: 'CSV and XLSX: the columns in output order.' })),
  sheets: Type.Optional(Type.Integer({ minimum: 2, description: 'XLSX split over more than one sheet.' })),
  notes,
});

export const buildDocumentOutput = Type.Object({
  message,
  path,
  format: Type.Union([Type.Literal('docx'), Type.Literal('pptx')]),
  bytes: Type.Integer({ minimum: 0 }),
  slides: Type.Optional(Type.Integer({ minimum: 0 })),
  tables: Type.Array(Type.Object({ source: Type.String(), rows: Type.Integer({ minimum: 0 }), columns: Type.Array(outputColumn) })),
  notes,
});

export const attachFileOutput = Type.Object({
  message,
  path,
  bytes: Type.Integer({ minimum: 0 }),
  rows: Type.Optional(Type.Integer({ minimum: 0 })),
  notes,
});

export const drawTableOutput = Type.String({ description: 'A Markdown table, then a line saying which rows it shows.' });
