import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import { findSecretsInValue } from '../../screening/index.js';
import { redactionNotes } from '../files/redaction-note.js';
import { closeNames } from '../../util/close-names.js';
import { expandArguments } from './expand-arguments.js';
import { normalizeOverrides } from './normalize-overrides.js';
import { readArgsFile } from './read-args-file.js';
import { callWithArgsFileOutput } from './delegation-output.js';

export const callWithArgsFileName = 'call_with_args_file';

/**
 * `call_with_args_file`: runs another tool with arguments read from a sandbox
 * JSON file, the model's own values laid on top and `{"$file"}` references
 * expanded. The host validates, authorizes (on the expanded object) and runs
 * the target; the history keeps this short call, the execution record the
 * expanded one.
 */
export const callWithArgsFileTool = defineTool({
  name: callWithArgsFileName,
  outputSchema: callWithArgsFileOutput,
  description: [
    'Call another tool (local, or an upstream MCP tool such as github__create_issue) with its arguments read from a JSON file in the sandbox, so you never retype text or rows the host already holds.',
    'Use it whenever an argument would copy text or rows you got from a tool result, a spill or a file (issue bodies, call stacks, comments, query rows): retyping is slow and silently changes the text.',
    "Two steps. 1) Write the arguments file: write_file to args/NAME.json, or run_script to read a spill (results/…) and write the target's arguments object to args/NAME.json; a file already in the target's shape (a spill) can be named directly.",
    '2) call_with_args_file {tool, argsPath, overrides}.',
    'overrides holds the values you write yourself (a verdict, a title, labels): objects merge key by key, arrays and other values replace, yours win.',
    'Inside overrides, {"$file": "results/0012-get_issue.json"} stands for that file\'s content (text files as a string, JSON as its value, JSONL as an array of rows) and {"$file": PATH, "$pointer": "/0/body"} for one value in it (JSONL: /ROW/column, rows from 0), so one argument can be composed from several spills without a script.',
    "The merged arguments are checked against the target's input schema, shown to the user for approval when the policy asks, then sent as is. The args file and the expanded arguments are limited to args.maxBytes (1 MiB by default).",
  ].join(' '),
  inputSchema: Type.Object(
    {
      tool: Type.String({ minLength: 1, description: 'Name of the tool to call, exactly as listed (e.g. "github__create_issue").' }),
      argsPath: Type.String({
        minLength: 1,
        description:
          'Sandbox path of a JSON file holding the target\'s arguments object, e.g. "args/create_issue.json" or a spill such as "results/0012-get_issue.json".',
      }),
      // Any JSON on purpose: models sometimes send the object as JSON text, which normalizeOverrides accepts.
      overrides: Type.Optional(
        Type.Unknown({
          description:
            'Optional JSON object laid over the file\'s arguments (your own values win; arrays replace). Values may be {"$file": PATH} or {"$file": PATH, "$pointer": "/0/body"} to insert a sandbox file\'s content or one value from it.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  annotations: { title: 'Call a tool with arguments from a file', openWorldHint: true },
  async handler(args, context) {
    const { tool: target, argsPath } = args;
    if (target === callWithArgsFileName) {
      throw new SpillwayError(
        'DELEGATION_LOOP',
        `${callWithArgsFileName} cannot call itself. Name the tool that should receive the arguments in "tool" (e.g. an upstream tool like github__create_issue).`,
        {
          tool: target,
        },
      );
    }
    const names = context.toolNames().filter((name) => name !== callWithArgsFileName);
    if (!names.includes(target)) {
      const explained = context.explainMissingTool(target);
      if (explained !== undefined) throw explained;
      const similar = closeNames(target, names);
      const hint = similar.length > 0 ? ` Did you mean: ${similar.join(', ')}?` : ` Available tools: ${names.slice(0, 40).join(', ')}.`;
      throw new SpillwayError('TOOL_NOT_FOUND', `${callWithArgsFileName}: there is no tool named ${JSON.stringify(target)} to call.${hint}`, {
        tool: target,
        similar,
      });
    }

    const maxBytes = context.config.args.maxBytes;
    const file = await readArgsFile(context.sandbox, argsPath, maxBytes);
    const { value: expanded, sources } = await expandArguments({
      sandbox: context.sandbox,
      base: file.value,
      argsPath: file.path,
      overrides: normalizeOverrides(args.overrides),
      maxBytes,
    });
    context.logger.debug({ target, argsPath: file.path, argsBytes: file.bytes, references: sources.length - 1 }, 'delegating call expanded');
    // A secret about to leave for another tool goes through approval (screening.delegation), whatever the file it came from.
    const secrets = findSecretsInValue(expanded).findings.map(({ kind, field }) => ({ kind, ...(field === undefined ? {} : { field }) }));
    const output = await context.invoke(target, expanded, { argsPath: file.path, sources, ...(secrets.length === 0 ? {} : { secrets }) });
    // Values redacted in a spill stay redacted in what was sent: say so beside the target's result.
    const files = [...new Set([file.path, ...sources.map((source) => source.from.split('#')[0] ?? '')])].filter((from) => from.includes('/'));
    const notes = (await redactionNotes(context.sandbox, files)).map((note) => `Sent to ${target}: ${note}`);
    return notes.length === 0 ? output : { ...output, notes: [...(output.notes ?? []), ...notes] };
  },
});
