import { Type } from '../../util/type-builder.js';

/** Output schemas of the reread tools (the `result` of their structured content). */
export const readFileOutput = Type.String({ description: 'A header naming the file and the lines shown, then numbered lines ("  12→text").' });

export const searchFileOutput = Type.String({ description: 'A header with the number of matching lines, then each as "line→text".' });

export const searchFilesOutput = Type.Object({
  summary: Type.String({ description: 'How many lines matched in how many files, and how much was read.' }),
  matches: Type.Array(
    Type.Object({
      file: Type.String({ description: 'Relative to the conversation folder.' }),
      line: Type.Integer({ minimum: 1, description: 'Line number (for JSONL: the row).' }),
      text: Type.String({ description: 'The matching line (or, with field, the field value), cut when long.' }),
    }),
    { description: 'Sorted by file, then line.' },
  ),
  filesSearched: Type.Integer({ minimum: 0 }),
  bytesRead: Type.Integer({ minimum: 0 }),
  notes: Type.Optional(Type.Array(Type.String(), { description: 'Caps that stopped the search and files not searched.' })),
});

export const listFilesOutput = Type.Object({
  files: Type.Array(
    Type.Object({
      path: Type.String({ description: 'Relative to the conversation folder.' }),
      bytes: Type.Integer({ minimum: 0 }),
      format: Type.String({ description: 'jsonl, json, text, binary, or the file extension.' }),
      rows: Type.Optional(Type.Integer({ minimum: 0 })),
      columns: Type.Optional(Type.Array(Type.String())),
      modifiedAt: Type.String(),
      expiresAt: Type.Optional(Type.String({ description: 'When retention deletes it; absent for outputs/.' })),
    }),
  ),
  note: Type.Optional(Type.String({ description: 'Says how many files the cap left out.' })),
});
