import type { Static } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import type { Attachment, ToolContext, ToolDefinition } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { formatBytes, formatCount } from '../../util/format.js';
import { ScriptBridge } from '../../script/script-bridge.js';
import { limitsFromConfig, type ScriptLimits } from '../../script/script-limits.js';
import type { ScriptRunner, ScriptRunResult } from '../../script/script-runner.js';
import { scriptListFiles } from './script-list-files.js';
import { runScriptOutput } from './script-output.js';
import { writesNewFile } from '../tool-annotations.js';

/** Characters of console output kept in an error message (the host spills the full error text). */
const consoleInErrorChars = 4000;

/** What the model gets back from a successful run. */
export interface RunScriptValue {
  /** The script's return value (null when it returned nothing). */
  result: unknown;
  /** Captured console output, when there was any. */
  console?: string;
  /** Files the script wrote, relative to the conversation folder. */
  written?: string[];
}

function description(limits: ScriptLimits): string {
  return [
    "Run a short JavaScript program in a QuickJS sandbox to combine spill files or reshape them into another tool's arguments, without retyping a single value.",
    'Give code (inline) or path (a script saved under scripts/ with write_file), plus args (any JSON, the global `args`).',
    'The body runs inside an async function: `return` a JSON value to get it back; console.log output comes back too.',
    'Globals: readText(path), readJson(path), readRows(path, {offset, limit}) (a JSONL table or JSON array as an array of objects; page big files with offset/limit),',
    'listFiles(dir), writeJson(path, value), writeText(path, text). Writes go only to args/, scripts/ or outputs/ (outputs/ files are given to the user as downloads).',
    'Paths are relative to the conversation folder, exactly as spill references show them. No network, no process, no timers, no import/require.',
    'To feed a tool that cannot read files, first build its arguments file, then delegate:',
    "(1) run_script {\"code\": \"const rows = readRows('results/0003-query_sql.jsonl'); writeJson('args/issue.json', {title: rows[0].title, body: rows.map(r => r.text).join('\\\\n')}); return rows.length;\"}",
    '(2) call_with_args_file {"tool": "create_issue", "argsPath": "args/issue.json"}.',
    `Limits per run: ${formatCount(limits.timeoutMs)} ms, ${formatBytes(limits.memoryBytes)} memory, ${formatBytes(limits.maxReadBytes)} read, ${formatBytes(limits.maxWriteBytes)} written, ${formatCount(limits.maxOutputChars)} characters of output.`,
    'Filtering and grouping belong in query_sql; use this for light reshaping.',
  ].join(' ');
}

const runScriptInput = Type.Object(
  {
    code: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'JavaScript to run (the body of an async function; `return` hands back the result). Give code or path, not both.',
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A script file under scripts/, e.g. "scripts/reshape.js" (written with write_file). Give code or path, not both.',
      }),
    ),
    args: Type.Optional(Type.Unknown({ description: 'Any JSON value, available to the script as the global `args`. Default {}.' })),
  },
  { additionalProperties: false },
);

/** The run_script tool, bound to a runner (worker threads) owned by the host. Its limits come from the configuration of each call (and of each listing). */
export function runScriptTool(runner: ScriptRunner): ToolDefinition {
  return defineTool({
    name: 'run_script',
    readsConversationFiles: true,
    longRunning: true,
    outputSchema: runScriptOutput,
    description: (config) => description(limitsFromConfig(config)),
    inputSchema: runScriptInput,
    annotations: writesNewFile('Run a sandboxed script'),
    async handler(args, context) {
      const runLimits = limitsFromConfig(context.config);
      const { source, filename } = await loadSource(args, context, runLimits);
      const bridge = new ScriptBridge({ sandbox: context.sandbox, limits: runLimits, listFiles: scriptListFiles(context) });
      const argsJson = JSON.stringify(args.args === undefined ? {} : args.args);
      const result = await runner.run({ source, filename, argsJson, limits: runLimits, bridge, signal: context.signal });
      context.logger.info(
        {
          outcome: result.ok ? 'ok' : result.error?.code,
          durationMs: Math.round(result.durationMs),
          bytesRead: bridge.bytesRead,
          bytesWritten: bridge.bytesWritten,
          files: result.written.length,
        },
        'script run',
      );
      if (!result.ok) throw failureWithContext(result);
      const value: RunScriptValue = { result: result.value ?? null };
      if (result.console !== '') value.console = result.console;
      if (result.written.length > 0) value.written = result.written.map((file) => file.relative);
      const attachments: Attachment[] = result.written
        .filter((file) => file.relative.startsWith('outputs/'))
        .map((file) => describeAttachment(context.sandbox, file.absolute, file.bytes));
      return attachments.length > 0 ? { value, attachments } : { value };
    },
  });
}

async function loadSource(args: Static<typeof runScriptInput>, context: ToolContext, limits: ScriptLimits): Promise<{ source: string; filename: string }> {
  const { code, path } = args;
  if ((code === undefined) === (path === undefined)) {
    throw new SpillwayError('INVALID_ARGUMENTS', 'Give exactly one of code (the script inline) or path (a script file under scripts/).', {
      errors: [{ path: '', message: 'exactly one of code or path is required' }],
    });
  }
  if (code !== undefined) {
    if (Buffer.byteLength(code) > limits.argsMaxBytes) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `The code is longer than ${formatCount(limits.argsMaxBytes)} bytes; save it with write_file under scripts/ and run it by path.`,
      );
    }
    return { source: code, filename: 'inline.js' };
  }
  const file = await context.sandbox.readFile(path, { folders: ['scripts'], maxBytes: limits.argsMaxBytes });
  return { source: file.data.toString('utf8'), filename: file.relative };
}

/** The run's error with what the model needs to fix it: console output before it, files already written. */
function failureWithContext(result: ScriptRunResult): SpillwayError {
  const error = result.error ?? new SpillwayError('SCRIPT_ERROR', 'The script failed.');
  const parts = [error.message];
  if (result.written.length > 0) parts.push(`Files written before the error: ${result.written.map((file) => file.relative).join(', ')}.`);
  if (result.console !== '') {
    const tail = result.console.length > consoleInErrorChars ? `…${result.console.slice(-consoleInErrorChars)}` : result.console;
    parts.push(`Console output before the error:\n${tail}`);
  }
  return new SpillwayError(error.code, parts.join('\n'), error.details);
}
