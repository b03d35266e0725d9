import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import { formatBytes, formatCount } from '../util/format.js';

/** The limits of one run, from `config.script` plus `args.maxBytes` for arguments files. */
export type ScriptLimits = Config['script'] & {
  /** Cap of one file written under args/ (what call_with_args_file will accept). */
  argsMaxBytes: number;
};

export type LimitName = keyof ScriptLimits;

/**
 * QuickJS's stack limit is clamped here as well as in the config schema: above
 * ~256 KiB, deep recursion in quickjs-emscripten 0.32 can overrun the
 * WebAssembly stack and corrupt the runtime instead of raising "stack overflow".
 */
export const maxStackBytes = 256 * 1024;

export function limitsFromConfig(config: Config): ScriptLimits {
  return { ...config.script, stackBytes: Math.min(config.script.stackBytes, maxStackBytes), argsMaxBytes: config.args.maxBytes };
}

const configKeys: Record<LimitName, string> = {
  timeoutMs: 'script.timeoutMs',
  memoryBytes: 'script.memoryBytes',
  stackBytes: 'script.stackBytes',
  maxReadBytes: 'script.maxReadBytes',
  maxWriteBytes: 'script.maxWriteBytes',
  maxOutputChars: 'script.maxOutputChars',
  argsMaxBytes: 'args.maxBytes',
};

/** How a limit's value reads in a message: "10,000 ms", "128 MiB (134,217,728 bytes)". */
export function describeLimit(limit: LimitName, value: number): string {
  switch (limit) {
    case 'timeoutMs':
      return `${formatCount(value)} ms`;
    case 'maxOutputChars':
      return `${formatCount(value)} characters`;
    default:
      return `${formatBytes(value)} (${formatCount(value)} bytes)`;
  }
}

/**
 * The error that ends a run at a limit. The message names the limit, its
 * configured value and what to do instead; details carry both for machines.
 */
export function limitError(limits: ScriptLimits, limit: LimitName, what: string, advice: string): SpillwayError {
  const value = limits[limit];
  return new SpillwayError(
    'SCRIPT_LIMIT',
    `${what}: the script hit the ${configKeys[limit]} limit of ${describeLimit(limit, value)} and was stopped. ${advice}`,
    { limit: configKeys[limit], value },
  );
}
