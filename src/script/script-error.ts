import { errorCodes, type ErrorCode, type SerializedError } from '../errors.js';
import { apiGlobals, preludeFilename } from './guest-prelude.js';
import type { RunOutcome } from './protocol.js';
import { limitError, type LimitName, type ScriptLimits } from './script-limits.js';
import { wrapperHeader } from './script-source.js';

/** An exception as `context.dump` gives it: usually an Error-like object. */
export interface ThrownValue {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
  code?: unknown;
}

/** Codes a guest-visible SpillwayError may carry into the tool's error (never SCRIPT_LIMIT: limits come from the host's own state). */
const apiErrorCodes = new Set<string>(
  Object.keys(errorCodes).filter(
    (code) => code.startsWith('PATH_') || ['INVALID_JSON', 'NOT_A_TABLE', 'RESULT_TOO_LARGE', 'SCRIPT_ERROR', 'INVALID_RANGE'].includes(code),
  ),
);

const missingGlobals: Record<string, string> = {
  fetch: 'there is no network',
  XMLHttpRequest: 'there is no network',
  WebSocket: 'there is no network',
  require: 'there are no modules',
  module: 'there are no modules',
  exports: 'there are no modules',
  process: 'there is no process',
  Buffer: 'there is no Node.js API',
  setTimeout: 'there are no timers',
  setInterval: 'there are no timers',
  setImmediate: 'there are no timers',
  queueMicrotask: 'there are no timers',
  WebAssembly: 'there is no WebAssembly',
  Atomics: 'there is no shared memory',
  performance: 'there is no Node.js API',
  Deno: 'there is no Deno API',
  Bun: 'there is no Bun API',
};

const maxStackLines = 20;
const apiHint = `The script sees only ${apiGlobals.join(', ')} (plus standard JavaScript).`;

export interface DescribeOptions {
  filename: string;
  source: string;
  /** The error happened while compiling (a syntax error), not while running. */
  compiling: boolean;
}

/** QuickJS's own uncatchable or resource errors, and the limit each one means. */
const runtimeLimits: Record<string, { limit: LimitName; what: string; advice: string }> = {
  interrupted: {
    limit: 'timeoutMs',
    what: 'The script ran out of time',
    advice: 'Do less work in one run (read pages of rows with readRows(path, { offset, limit })), or use query_sql for filtering and grouping.',
  },
  'out of memory': {
    limit: 'memoryBytes',
    what: 'The script ran out of memory',
    advice: 'Keep less in memory at once: read big files in pages with readRows(path, { offset, limit }) and write results as you go.',
  },
  'stack overflow': {
    limit: 'stackBytes',
    what: 'Stack overflow (recursion too deep)',
    advice: 'Rewrite the recursion as a loop.',
  },
};

/**
 * How a run that threw ends: a QuickJS resource error becomes the limit it
 * means (and the worker is retired), anything else the script's own error.
 */
export function failureOutcome(thrown: unknown, options: DescribeOptions & { limits: ScriptLimits }): RunOutcome {
  const info = typeof thrown === 'object' && thrown !== null ? (thrown as ThrownValue) : {};
  const message = typeof info.message === 'string' ? info.message : '';
  const limit = info.name === 'InternalError' && Object.hasOwn(runtimeLimits, message) ? runtimeLimits[message] : undefined;
  if (limit !== undefined) {
    const frames = cleanStack(typeof info.stack === 'string' ? info.stack : '', options.filename).slice(0, 4);
    const where = frames.length > 0 ? `\n${frames.join('\n')}` : '';
    return { ok: false, error: limitError(options.limits, limit.limit, limit.what, `${limit.advice}${where}`).toJSON(), retire: true };
  }
  return { ok: false, error: describeThrown(thrown, options), retire: false };
}

/** A guest exception as a coded error the model can act on: message, the script's own stack, a hint. */
export function describeThrown(thrown: unknown, options: DescribeOptions): SerializedError {
  if (typeof thrown !== 'object' || thrown === null) {
    const shown = safeJson(thrown);
    return {
      code: 'SCRIPT_ERROR',
      message: `The script threw ${shown} (not an Error object, so there is no stack). Throw new Error("...") to get a line number.`,
      details: { thrown: shown },
    };
  }
  const error = thrown as ThrownValue;
  const name = typeof error.name === 'string' ? error.name : 'Error';
  const message = typeof error.message === 'string' ? error.message : safeJson(thrown);
  const frames = cleanStack(typeof error.stack === 'string' ? error.stack : '', options.filename);
  const location = firstLocation(frames, options.filename);

  if (options.compiling && name === 'SyntaxError') {
    const where = location === undefined ? '' : ` at ${options.filename}:${location.line}:${location.column}`;
    const excerpt = location === undefined ? '' : `\n${sourceExcerpt(options.source, location.line, location.column)}`;
    return {
      code: 'SCRIPT_SYNTAX',
      message: `SyntaxError: ${message}${where}.${excerpt}\n${syntaxHint(options.source)}`,
      details: { file: options.filename, ...(location ?? {}) },
    };
  }

  const hint = hintFor(name, message);
  const stackText = frames.length > 0 ? `\n${frames.join('\n')}` : '';
  const apiCode = name === 'SpillwayError' && typeof error.code === 'string' && apiErrorCodes.has(error.code) ? (error.code as ErrorCode) : undefined;
  return {
    code: apiCode ?? 'SCRIPT_ERROR',
    message: `${name}: ${message}${stackText}${hint === undefined ? '' : `\n${hint}`}`,
    details: { name, file: options.filename, ...(location ?? {}), ...(frames.length > 0 ? { stack: frames.join('\n') } : {}) },
  };
}

/**
 * The script's own frames: prelude frames dropped, line-1 columns corrected
 * for the wrapper, runs of one repeated frame (deep recursion) collapsed.
 */
export function cleanStack(stack: string, filename: string): string[] {
  const lines = stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at ') && !line.includes(preludeFilename))
    .map((line) => fixColumn(line, filename));
  const out: string[] = [];
  let index = 0;
  while (index < lines.length && out.length < maxStackLines) {
    const line = lines[index] as string;
    let run = 1;
    while (lines[index + run] === line) run += 1;
    out.push(`    ${line}`);
    if (run > 1) out.push(`    ... the same frame ${run - 1} more time(s)`);
    index += run;
  }
  if (index < lines.length) out.push(`    ... ${lines.length - index} more frame(s)`);
  return out;
}

function fixColumn(frame: string, filename: string): string {
  const prefix = `${filename}:1:`;
  const at = frame.indexOf(prefix);
  if (at === -1) return frame;
  const rest = frame.slice(at + prefix.length);
  const digits = /^\d+/.exec(rest)?.[0];
  if (digits === undefined) return frame;
  const column = Math.max(1, Number(digits) - wrapperHeader.length);
  return `${frame.slice(0, at)}${prefix}${column}${rest.slice(digits.length)}`;
}

function firstLocation(frames: string[], filename: string): { line: number; column: number } | undefined {
  const pattern = new RegExp(`${escapeRegExp(filename)}:(\\d+):(\\d+)`);
  for (const frame of frames) {
    const match = pattern.exec(frame);
    if (match !== null) return { line: Number(match[1]), column: Number(match[2]) };
  }
  return undefined;
}

function sourceExcerpt(source: string, line: number, column: number): string {
  const text = source.split('\n')[line - 1];
  if (text === undefined) return '';
  const shown = text.length > 160 ? `${text.slice(0, 160)}…` : text;
  const gutter = `${line} | `;
  return `${gutter}${shown}\n${' '.repeat(gutter.length + Math.max(0, Math.min(column - 1, 160)))}^`;
}

function syntaxHint(source: string): string {
  if (/^\s*(import|export)\b/m.test(source)) {
    return `Modules are not available: there is no import, export or require. ${apiHint}`;
  }
  return 'The script is the body of an async function: "return value" hands back a result and "await" is allowed.';
}

function hintFor(name: string, message: string): string | undefined {
  if (name === 'ReferenceError') {
    const missing = /^'?([\w$]+)'? is not defined/.exec(message)?.[1];
    if (missing !== undefined && Object.hasOwn(missingGlobals, missing)) {
      return `run_script has no ${missing}: ${missingGlobals[missing]} in the sandbox. ${apiHint}`;
    }
    if (/could not load module/.test(message)) return `Modules cannot be loaded in run_script. ${apiHint}`;
    return apiHint;
  }
  if (/Modules cannot be loaded/.test(message)) return apiHint;
  return undefined;
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    // fall through
  }
  return String(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
