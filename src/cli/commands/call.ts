import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { SpillwayError, type ErrorCode } from '../../errors.js';
import type { ExecuteResult } from '../../host/host.js';
import { toStructuredResult } from '../../host/structured-result.js';
import { createLogger } from '../../log/logger.js';
import { warmSqlSource } from '../../sql/warm-sql-source.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { parseJsonOr, parseJsonSafely } from '../../util/safe-json.js';
import { commandLogLevel } from '../command-log-level.js';
import type { CliIo } from '../output.js';

export const callUsage = `spillway call TOOL [--args-file F] [--set key=value …] [--conversation C] [--principal P] [--json]

Runs one tool call through the host, as a model's call would run: local or
upstream tool, the same policy, spill rules and execution record. For
playbook runners: scripts and CI jobs that call tools without a model.

  --args-file F       a JSON object with the tool's arguments; "-" reads standard input
  --set key=value     sets one argument on top of the file (repeatable); a dotted key
                      sets a nested member (range.count=10); the value is JSON when it
                      parses as JSON (10, true, {"a":1}), else the text itself
  --conversation C    the conversation (sandbox folder) to run in (default: cli)
  --principal P       whose files: the folder <root>/P/C (default: local, as over
                      stdio and HTTP without auth)
  --json              print the result as JSON: the text, result, spill reference, notes
  --config FILE       configuration (sandbox root, policy, upstreams)

Exit codes: 0 done; 2 usage; 3 unknown tool (TOOL_NOT_FOUND); 4 arguments not
readable as a JSON object (INVALID_JSON, ARGS_NOT_OBJECT); 5 arguments violate
the tool's schema (INVALID_ARGUMENTS); 6 refused by policy or approval
(PERMISSION_DENIED, APPROVAL_DECLINED, APPROVAL_UNAVAILABLE); 7 the tool failed
(any other code). A failure prints one line on stderr: "spillway call: CODE: message".

Examples:
  spillway call query_sql --conversation q3 --set sql="SELECT * FROM transactions WHERE amount >= 200"
  spillway call export_table --conversation q3 --set source=results/0001-query_sql.jsonl --set format=xlsx
  echo '{"path":"results/0001-query_sql.jsonl","limit":5}' | spillway call read_file --conversation q3 --args-file - --json`;

/** One exit code per class of failure, so a playbook can branch on it. */
export const callExitCodes = {
  ok: 0,
  usage: 2,
  unknownTool: 3,
  unreadableArguments: 4,
  invalidArguments: 5,
  refused: 6,
  toolFailed: 7,
} as const;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'TOOL_NOT_FOUND':
      return callExitCodes.unknownTool;
    case 'INVALID_JSON':
    case 'ARGS_NOT_OBJECT':
      return callExitCodes.unreadableArguments;
    case 'INVALID_ARGUMENTS':
      return callExitCodes.invalidArguments;
    case 'PERMISSION_DENIED':
    case 'APPROVAL_DECLINED':
    case 'APPROVAL_UNAVAILABLE':
      return callExitCodes.refused;
    default:
      return callExitCodes.toolFailed;
  }
}

export async function callCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'args-file': { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
      conversation: { type: 'string', default: 'cli' },
      principal: { type: 'string', default: 'local' },
      json: { type: 'boolean', default: false },
      config: { type: 'string' },
    },
    strict: true,
  });
  if (positionals.length !== 1) {
    io.err(`spillway call: give exactly one TOOL (got ${positionals.length}); run \`spillway call --help\` for its options.`);
    return callExitCodes.usage;
  }
  const toolName = positionals[0] as string;
  let args: Record<string, unknown>;
  try {
    args = await readArguments(values['args-file']);
    for (const assignment of values.set) applySet(args, assignment);
  } catch (error) {
    return fail(io, SpillwayError.is(error) ? error : new SpillwayError('INVALID_JSON', (error as Error).message));
  }

  const config = loadConfig({ file: values.config });
  // query_sql's first call waits for its SQLite child to start (~0.1 s): fork it now, so it starts while the host's modules load.
  if (toolName === 'query_sql') warmSqlSource(config);
  const [{ createHost }, { startUpstreams }] = await Promise.all([import('../../runtime/create-host.js'), import('../../upstream/start-upstreams.js')]);
  const host = await createHost({ config, logger: createLogger(commandLogLevel(config.log.level)) });
  try {
    // One call from a shell: wait for the upstreams' first attempts, so their tools are there.
    await startUpstreams(host).settled();
    const result = await host.execute({ name: toolName, arguments: args }, { conversationId: values.conversation, principal: values.principal, caller: 'cli' });
    if (values.json) io.out(JSON.stringify(jsonView(result), null, 2));
    else if (!result.isError) io.out(result.text);
    if (result.error !== undefined) return fail(io, SpillwayError.fromJSON(result.error));
    return callExitCodes.ok;
  } finally {
    await host.close();
  }
}

function fail(io: CliIo, error: SpillwayError): number {
  // One line: multi-line messages (every schema violation) are joined.
  io.err(
    `spillway call: ${error.code}: ${error.message
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .join('; ')}`,
  );
  return exitCodeFor(error.code);
}

function jsonView(result: ExecuteResult): Record<string, unknown> {
  return {
    tool: result.tool,
    callId: result.callId,
    isError: result.isError,
    ...(result.isError ? {} : toStructuredResult(result)),
    ...(result.error === undefined ? {} : { error: result.error }),
    text: result.text,
  };
}

async function readArguments(file: string | undefined): Promise<Record<string, unknown>> {
  if (file === undefined) return {};
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new SpillwayError('INVALID_JSON', `The arguments file ${file} cannot be read: ${(error as Error).message}.`, { file });
  }
  const value = parseJsonOr(
    text,
    (reason) =>
      new SpillwayError('INVALID_JSON', `The arguments ${file === '-' ? 'on standard input' : `in ${file}`} are not valid JSON: ${reason}.`, { file }),
  );
  if (!isJsonObject(value))
    throw new SpillwayError(
      'ARGS_NOT_OBJECT',
      `The arguments ${file === '-' ? 'on standard input' : `in ${file}`} must be a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}).`,
      { file },
    );
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** "range.count=10" sets args.range.count = 10; the value is JSON when it parses, else text. */
export function applySet(args: Record<string, unknown>, assignment: string): void {
  const equals = assignment.indexOf('=');
  if (equals <= 0) throw new SpillwayError('INVALID_JSON', `--set takes key=value (got ${JSON.stringify(assignment)}).`, { set: assignment });
  const keys = assignment.slice(0, equals).split('.');
  const raw = assignment.slice(equals + 1);
  let value: unknown = raw;
  try {
    value = parseJsonSafely(raw);
  } catch {
    // Not JSON: the text itself.
  }
  let target = args;
  for (const [index, key] of keys.entries()) {
    if (key === '' || key === '__proto__' || key === 'constructor' || key === 'prototype') {
      throw new SpillwayError('INVALID_JSON', `--set ${JSON.stringify(assignment)}: the key ${JSON.stringify(key)} is not allowed.`, { set: assignment });
    }
    if (index === keys.length - 1) {
      target[key] = value;
      break;
    }
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    if (!isJsonObject(next)) target[key] = {};
    target = target[key] as Record<string, unknown>;
  }
}

/** The verb as `spillway` runs it. */
export const command = { run: callCommand, usage: callUsage };
