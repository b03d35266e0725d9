import { createRequire } from 'node:module';
import { SpillwayError } from '../errors.js';
import { regexpWeight } from './regexp-weight.js';

/** A compiled model-supplied pattern: only `test`, which runs in time linear in the line. */
export interface LinearRegExp {
  test(text: string): boolean;
}

/** Longest pattern accepted; RE2 also caps the memory a compiled pattern may use. */
export const maxPatternChars = 4096;

/**
 * Most pattern positions once counted repetitions are written out ({@link regexpWeight}):
 * at this weight a 64 KiB line cost at most ~10 ms here; at twice it, up to 0.9 s.
 */
export const maxPatternWeight = 500;

/** What a tool's description says of the patterns it takes. */
export const userRegExpSyntax = `RE2 syntax, linear time; no backreferences or lookaround; counted repetitions ({n,m}) may stand for at most ${maxPatternWeight} positions in all`;

type Re2Constructor = new (pattern: string, flags?: string) => LinearRegExp;
let re2: Re2Constructor | undefined;

function loadRe2(): Re2Constructor {
  // re2 is a CommonJS native module; loaded on first use so a host that never searches never loads it.
  re2 ??= createRequire(import.meta.url)('re2') as Re2Constructor;
  return re2;
}

/**
 * Compiles a model-supplied regular expression with RE2, a linear-time
 * engine: no pattern (`(a+)+$` and friends) can backtrack, so a search costs
 * time in proportion to the text on any input; counted repetitions that would make
 * each character costly are refused ({@link maxPatternWeight}).
 * RE2 has no backreferences and no lookaround; such a pattern is refused with
 * a message that says so, rather than run on a backtracking engine.
 */
export function compileUserRegExp(pattern: string, flags = ''): LinearRegExp {
  if (pattern.length > maxPatternChars) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `The pattern is ${pattern.length} characters; at most ${maxPatternChars} are allowed. Search for a shorter pattern.`,
      {
        pattern: `${pattern.slice(0, 200)}…`,
        maxChars: maxPatternChars,
      },
    );
  }
  const weight = regexpWeight(pattern);
  if (weight > maxPatternWeight) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `The pattern's counted repetitions ({n}, {n,m}) stand for ${weight} positions once written out; at most ${maxPatternWeight} are allowed, as each costs matching time on every character. Use smaller counts (a{1,50} rather than a{1,1000}), * or +, or several searches.`,
      { pattern: pattern.slice(0, 200), weight, maxWeight: maxPatternWeight },
    );
  }
  const Engine = loadRe2();
  try {
    return new Engine(pattern, flags);
  } catch (error) {
    const message = (error as Error).message;
    const unsupported = /invalid (perl operator|escape sequence)|backreference|lookahead|lookbehind/i.test(message);
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      unsupported
        ? `The pattern uses a feature the linear-time regular expression engine (RE2) does not have (${message}): backreferences (\\1) and lookaround ((?=…), (?!…), (?<=…)) are not supported. Rewrite the pattern without them, or pass regex: false to search for the text as is.`
        : `The pattern is not a valid regular expression: ${message}. Pass regex: false to search for the text as is.`,
      { pattern: pattern.slice(0, 200), engine: 're2' },
    );
  }
}
