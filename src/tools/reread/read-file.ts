import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import { formatCount } from '../../util/format.js';
import { capLine, looksBinary, readLines } from './read-lines.js';
import { readFileOutput } from './reread-output.js';
import { readsOnly } from '../tool-annotations.js';

export const readFileTool = defineTool({
  name: 'read_file',
  readsConversationFiles: true,
  outputSchema: readFileOutput,
  description: [
    "Read numbered lines of a file in this conversation's sandbox (a spilled result in results/, an error in errors/, an args file, a script, an output).",
    'Paths are relative to the conversation folder, exactly as a spill reference gives them, e.g. "results/0007-query_sql.jsonl". JSONL tables have one row per line.',
    "offset is the first line (1-based), limit the number of lines. Use this to look at data, not to copy it: to turn a spill into a file or another tool's arguments, pass its path to export_table, draw_table, build_document or call_with_args_file.",
  ].join(' '),
  inputSchema: Type.Object(
    {
      path: Type.String({ description: 'File path relative to the conversation folder, e.g. "results/0007-query_sql.jsonl".' }),
      offset: Type.Optional(Type.Integer({ minimum: 1, description: 'First line to return (1-based). Default 1.' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Number of lines to return. Default and maximum set by the host.' })),
    },
    { additionalProperties: false },
  ),
  spill: false,
  annotations: readsOnly('Read a sandbox file'),
  async handler(args, context) {
    const { maxLines, maxChars, maxLineChars } = context.config.reread;
    const offset = args.offset ?? 1;
    const limit = Math.min(args.limit ?? maxLines, maxLines);
    const file = await context.sandbox.openRead(args.path);
    try {
      if (await looksBinary(file)) {
        throw new SpillwayError(
          'PATH_NOT_FILE',
          `${file.relative} is a binary file (${formatCount(file.stats.size)} bytes) and has no lines to read; give it to the user with attach_file.`,
          {
            path: file.relative,
          },
        );
      }
      const out: string[] = [];
      let chars = 0;
      let total = 0;
      let lastShown = offset - 1;
      let stopReason: 'limit' | 'chars' | undefined;
      for await (const line of readLines(file)) {
        total = line.number;
        if (line.number < offset || stopReason !== undefined) continue;
        const text = `${String(line.number).padStart(6)}\t${capLine(line.text, maxLineChars, line.length)}`;
        if (out.length >= limit) stopReason = 'limit';
        else if (chars + text.length + 1 > maxChars && out.length > 0) stopReason = 'chars';
        else {
          out.push(text);
          chars += text.length + 1;
          lastShown = line.number;
        }
      }
      if (offset > total && total > 0) {
        return { value: `[${file.relative} has ${formatCount(total)} lines; offset ${formatCount(offset)} is past the end.]` };
      }
      if (total === 0) return { value: `[${file.relative} is empty.]` };
      const header = `[${file.relative}: lines ${formatCount(offset)}–${formatCount(lastShown)} of ${formatCount(total)}]`;
      const footer =
        lastShown < total
          ? `\n[${stopReason === 'chars' ? `stopped at the ${formatCount(maxChars)}-character cap` : `stopped at ${formatCount(limit)} lines`}; continue with offset=${lastShown + 1}. To hand the data on, pass the path instead of copying lines.]`
          : '';
      return { value: `${header}\n${out.join('\n')}${footer}` };
    } finally {
      await file.handle.close();
    }
  },
});
