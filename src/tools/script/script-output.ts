import { Type } from '../../util/type-builder.js';

/** Output schemas of run_script and write_file (the `result` of their structured content). */
export const runScriptOutput = Type.Object({
  result: Type.Unknown({ description: "The script's return value (null when it returned nothing)." }),
  console: Type.Optional(Type.String({ description: 'Captured console output.' })),
  written: Type.Optional(Type.Array(Type.String(), { description: 'Files the script wrote, relative to the conversation folder.' })),
});

export const writeFileOutput = Type.Object({
  path: Type.String({ description: 'Relative to the conversation folder.' }),
  bytes: Type.Integer({ minimum: 0 }),
});
