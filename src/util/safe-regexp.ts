import v8 from 'node:v8';
import { SpillwayError } from '../errors.js';

let linearFallbackEnabled = false;

/**
 * Compiles a model-supplied regular expression. V8 is told once to fall back to
 * its linear-time engine when a match backtracks excessively, so a pattern like
 * `(a+)+$` cannot stall the host.
 */
export function compileUserRegExp(pattern: string, flags = ''): RegExp {
  if (!linearFallbackEnabled) {
    v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
    linearFallbackEnabled = true;
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new SpillwayError('INVALID_ARGUMENTS', `The pattern is not a valid regular expression: ${(error as Error).message}. Pass regex: false to search for the text as is.`, {
      pattern,
    });
  }
}
