import { SpillwayError } from '../../errors.js';
import type { ConversationSandbox } from '../../sandbox/index.js';
import { metadataSuffix } from '../../sandbox/layout.js';
import type { SpillRef } from '../../spill/spill-ref.js';
import { formatBytes, formatCount } from '../../util/format.js';
import { parseJsonOr, parseJsonSafely } from '../../util/safe-json.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { setMember } from './deep-merge.js';

export interface ArgsFile {
  /** The path as the model should see it (relative to the conversation folder). */
  path: string;
  bytes: number;
  value: Record<string, unknown>;
}

/**
 * Reads the arguments object of a delegating call: any sandbox JSON file of at
 * most `maxBytes`, parsed with prototype keys refused. A JSONL spill whose
 * result was an object around a table (its metadata names the envelope) is
 * rebuilt into that object, so a spill already in the target's shape can be
 * passed as it is.
 */
export async function readArgsFile(sandbox: ConversationSandbox, argsPath: string, maxBytes: number): Promise<ArgsFile> {
  let relative: string;
  let data: Buffer;
  try {
    ({ relative, data } = await sandbox.readFile(argsPath, { maxBytes }));
  } catch (error) {
    if (SpillwayError.is(error) && error.code === 'RESULT_TOO_LARGE') {
      const bytes = Number(error.details?.bytes);
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `The args file ${argsPath} is ${formatCount(bytes)} bytes; an args file may be at most ${formatCount(maxBytes)} bytes (${formatBytes(maxBytes)}, args.maxBytes). ` +
          'Send less: have run_script write only the fields the target needs, or split the work into several calls.',
        { ...error.details, argsPath },
      );
    }
    throw error;
  }
  const text = data.toString('utf8');
  if (relative.endsWith('.jsonl')) return { path: relative, bytes: data.length, value: await fromJsonl(sandbox, relative, text) };
  const value = parseJsonOr(
    text,
    (reason) =>
      new SpillwayError(
        'INVALID_JSON',
        `The args file ${relative} is not valid JSON: ${reason}. It must hold one JSON object with the target tool's arguments; write it again with write_file or run_script (JSON.stringify).`,
        { argsPath: relative },
      ),
  );
  if (!isJsonObject(value)) throw notAnObject(relative, value);
  return { path: relative, bytes: data.length, value };
}

async function fromJsonl(sandbox: ConversationSandbox, relative: string, text: string): Promise<Record<string, unknown>> {
  const rows: unknown[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim().length === 0) continue;
    try {
      rows.push(parseJsonSafely(line));
    } catch (error) {
      throw new SpillwayError('INVALID_JSON', `The args file ${relative} is not valid JSONL: line ${index + 1}: ${(error as Error).message}.`, {
        argsPath: relative,
        line: index + 1,
      });
    }
  }
  const envelope = await readEnvelope(sandbox, relative);
  if (envelope === undefined) throw notAnObject(relative, rows);
  const value: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(envelope.fields)) setMember(value, key, member);
  setMember(value, envelope.rowsKey, rows);
  return value;
}

async function readEnvelope(sandbox: ConversationSandbox, relative: string): Promise<SpillRef['envelope']> {
  try {
    const { data } = await sandbox.readFile(`${relative}${metadataSuffix}`, { maxBytes: 16 * 1024 * 1024 });
    const meta = parseJsonSafely(data.toString('utf8')) as Partial<SpillRef>;
    const envelope = meta.envelope;
    if (envelope !== undefined && typeof envelope.rowsKey === 'string' && isJsonObject(envelope.fields)) return envelope;
  } catch {
    // No sidecar: a plain table.
  }
  return undefined;
}

function notAnObject(relative: string, value: unknown): SpillwayError {
  const kind = Array.isArray(value) ? `an array (${value.length} items)` : value === null ? 'null' : `a ${typeof value}`;
  return new SpillwayError(
    'ARGS_NOT_OBJECT',
    `The args file ${relative} holds ${kind}, not a JSON object. It must hold the target tool's arguments as one object, e.g. {"title": "…", "body": "…"}. ` +
      `To pass this data as one argument, use an args file holding {} (or the other arguments) and overrides {"NAME": {"$file": "${relative}"}}.`,
    { argsPath: relative, found: Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value },
  );
}
