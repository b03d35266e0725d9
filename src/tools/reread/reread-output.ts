import { Type } from '@sinclair/typebox';

/** Output schemas of the reread tools (the `result` of their structured content). */
export const readFileOutput = Type.String({ description: 'A header naming the file and the lines shown, then numbered lines ("  12→text").' });

export const searchFileOutput = Type.String({ description: 'A header with the number of matching lines, then each as "line→text".' });

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
