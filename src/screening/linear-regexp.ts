import { createRequire } from 'node:module';

/** The part of an RE2 object the screening rules use (node-re2 mirrors RegExp). */
export interface Re2Pattern {
  lastIndex: number;
  exec(text: string): RegExpExecArray | null;
  test(text: string): boolean;
}

type Re2Constructor = new (pattern: string, flags?: string) => Re2Pattern;
let re2: Re2Constructor | undefined;

/**
 * Compiles one of spillway's own screening patterns with RE2 (linear time):
 * results are untrusted text of any size, so no rule may backtrack on them.
 */
export function linearPattern(pattern: string, flags = ''): Re2Pattern {
  re2 ??= createRequire(import.meta.url)('re2') as Re2Constructor;
  return new re2(pattern, flags);
}

/** The number of capture groups in an RE2 pattern (an empty alternative matches '' so exec shows them all). */
export function groupCount(pattern: string): number {
  const match = linearPattern(`(?:${pattern})|`).exec('');
  return (match?.length ?? 1) - 1;
}
