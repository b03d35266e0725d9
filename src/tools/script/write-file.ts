import path from 'node:path';
import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import type { ConversationFolder } from '../../sandbox/layout.js';
import { formatCount } from '../../util/format.js';
import { parseJsonSafely } from '../../util/safe-json.js';
import { writeFileOutput } from './script-output.js';

/** write_file writes model-authored files only: argument overlays and scripts. */
export const writeFileFolders: readonly ConversationFolder[] = ['args', 'scripts'];

export const writeFileTool = defineTool({
  name: 'write_file',
  outputSchema: writeFileOutput,
  description: [
    "Write a file you authored into this conversation's sandbox: an arguments file under args/ (for call_with_args_file) or a script under scripts/ (for run_script with path).",
    'content is text, or any JSON value (written pretty-printed). An existing file at that path is replaced. At most args.maxBytes.',
    "Do not copy data from tool results into content: to turn a spill file into arguments, use run_script (readRows → writeJson('args/x.json', …)), then call_with_args_file.",
  ].join(' '),
  inputSchema: Type.Object(
    {
      path: Type.String({ minLength: 1, description: 'Where to write, under args/ or scripts/, e.g. "args/issue.json" or "scripts/reshape.js".' }),
      content: Type.Unknown({ description: 'The file content: a string is written as is; any other JSON value is written as pretty-printed JSON.' }),
    },
    { additionalProperties: false },
  ),
  spill: false,
  annotations: { title: 'Write an args file or script', readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async handler(args, context) {
    const { sandbox, config } = context;
    const { path: relative } = args;
    sandbox.checkPath(relative, { folders: writeFileFolders });
    const text = typeof args.content === 'string' ? args.content : `${JSON.stringify(args.content ?? null, null, 2)}\n`;
    const bytes = Buffer.byteLength(text);
    if (bytes > config.args.maxBytes) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `The content is ${formatCount(bytes)} bytes; write_file accepts at most ${formatCount(config.args.maxBytes)} (args.maxBytes). Build large arguments from spill files with run_script instead of typing them.`,
        { bytes, maxBytes: config.args.maxBytes },
      );
    }
    if (path.extname(relative).toLowerCase() === '.json') {
      try {
        parseJsonSafely(text);
      } catch (error) {
        throw new SpillwayError(
          'INVALID_JSON',
          `${relative} would not be valid JSON (${(error as Error).message}). Pass the value itself as content (an object, not a string), or fix the text; "__proto__" and "constructor.prototype" keys are refused.`,
          { path: relative },
        );
      }
    }
    const written = await sandbox.writeFile(relative, text, { folders: writeFileFolders, overwrite: true });
    return { value: { path: written.relative, bytes } };
  },
});
