/**
 * How many pattern positions a regular expression stands for once its counted
 * repetitions are written out: `a{3}` weighs 3, `(?:ab?){10}` 20, `(?:x{5}){4}` 20.
 *
 * RE2 matches in time linear in the text, but each character costs work in
 * proportion to the states its automaton can be in, and counted repetitions of
 * optional parts multiply those: `(?:a?){1000}X` took 0.67 s for one 64 KiB line
 * here, `(?:a?){300}X` 3.5 ms. A rough weight is enough to refuse the first and
 * keep every everyday pattern (`[A-Za-z0-9]{36,255}` weighs 255).
 *
 * The count is syntactic and forgiving: it never throws, and text it does not
 * understand weighs 1 a character (RE2 itself rejects what is invalid).
 */
export function regexpWeight(pattern: string): number {
  const parser = { pattern, at: 0 };
  return sequenceWeight(parser, false);
}

interface Parser {
  pattern: string;
  at: number;
}

/** Alternatives weigh their sum (each is a branch the automaton may be in); stops at `)` when inside a group. */
function sequenceWeight(parser: Parser, inGroup: boolean): number {
  let total = 0;
  let last = 0;
  while (parser.at < parser.pattern.length) {
    const char = parser.pattern[parser.at];
    if (char === ')' && inGroup) break;
    if (char === '|') {
      parser.at += 1;
      last = 0;
      continue;
    }
    const repeat = repetition(parser);
    if (repeat !== undefined) {
      // The repeated atom is written out `repeat` times: add the copies beyond the first.
      total += last * (repeat - 1);
      last *= repeat;
      continue;
    }
    last = atomWeight(parser);
    total += last;
  }
  return total;
}

/** One atom at the parser's place (consumed): a group, a class, an escape or a character. */
function atomWeight(parser: Parser): number {
  const { pattern } = parser;
  const char = pattern[parser.at];
  if (char === '(') {
    parser.at += 1;
    const flagsOnly = /^\?[imsU-]*\)/.exec(pattern.slice(parser.at, parser.at + 12));
    if (flagsOnly !== null) {
      parser.at += flagsOnly[0].length;
      return 0;
    }
    const prefix = /^\?(?:P?<[^>]*>|[imsU-]*:)/.exec(pattern.slice(parser.at, parser.at + 80));
    if (prefix !== null) parser.at += prefix[0].length;
    const inner = sequenceWeight(parser, true);
    if (pattern[parser.at] === ')') parser.at += 1;
    return inner;
  }
  if (char === '[') {
    skipClass(parser);
    return 1;
  }
  if (char === '\\') {
    skipEscape(parser);
    return 1;
  }
  parser.at += 1;
  return 1;
}

/** A quantifier at the parser's place (consumed): how many times the atom before it is written out (1 for `*`, `+`, `?`). */
function repetition(parser: Parser): number | undefined {
  const { pattern } = parser;
  const char = pattern[parser.at];
  if (char === '*' || char === '+' || char === '?') {
    parser.at += pattern[parser.at + 1] === '?' ? 2 : 1;
    return 1;
  }
  if (char !== '{') return undefined;
  const counted = /^\{(\d{1,7})(,(\d{0,7}))?\}\??/.exec(pattern.slice(parser.at, parser.at + 20));
  if (counted === null) return undefined;
  parser.at += counted[0].length;
  const least = Number(counted[1]);
  const most = counted[2] === undefined ? least : counted[3] === '' ? least + 1 : Number(counted[3]);
  return Math.max(1, least, most);
}

function skipEscape(parser: Parser): void {
  const { pattern } = parser;
  const next = pattern[parser.at + 1];
  if (next === 'Q') {
    // \Q…\E: literal text.
    const end = pattern.indexOf('\\E', parser.at + 2);
    parser.at = end === -1 ? pattern.length : end + 2;
    return;
  }
  if ((next === 'p' || next === 'P' || next === 'x') && pattern[parser.at + 2] === '{') {
    const end = pattern.indexOf('}', parser.at + 3);
    parser.at = end === -1 ? pattern.length : end + 1;
    return;
  }
  parser.at += 2;
}

/** Skips a character class: `[...]`, with escapes, `[:alpha:]` and a leading `]` taken as a member. */
function skipClass(parser: Parser): void {
  const { pattern } = parser;
  let at = parser.at + 1;
  if (pattern[at] === '^') at += 1;
  if (pattern[at] === ']') at += 1;
  while (at < pattern.length && pattern[at] !== ']') {
    if (pattern[at] === '\\') at += 2;
    else if (pattern.startsWith('[:', at)) {
      const end = pattern.indexOf(':]', at + 2);
      at = end === -1 ? at + 1 : end + 2;
    } else at += 1;
  }
  parser.at = Math.min(pattern.length, at + 1);
}
