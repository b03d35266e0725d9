import { createRequire } from 'node:module';

/** The part of an RE2 object the screening rules use (node-re2 mirrors RegExp). */
export interface Re2Pattern {
  lastIndex: number;
  exec(text: string | Buffer): RegExpExecArray | null;
  test(text: string | Buffer): boolean;
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

/** One match of a {@link RuleSet}: the rule that matched, where, and the match's groups (the rule's own groups start at `group + 1`). */
export interface RuleMatch<Rule> {
  rule: Rule;
  match: RegExpExecArray;
  /** Index of the rule's whole-match group in `match`. */
  group: number;
}

/**
 * Several rules as one RE2 pattern, so one linear pass over a text finds the
 * leftmost rule at each position (`wrap` puts flags around the whole, e.g.
 * `(?i:…)`). Compiled on first use.
 */
export class RuleSet<Rule extends { pattern: string }> {
  private compiled: { pattern: Re2Pattern; groups: { rule: Rule; group: number }[] } | undefined;

  constructor(
    private readonly rules: readonly Rule[],
    private readonly wrap: (alternatives: string) => string = (alternatives) => alternatives,
  ) {}

  /** Every match in `text`, in order (empty matches are stepped over). */
  *matches(text: string): Generator<RuleMatch<Rule>> {
    const { pattern, groups } = this.compile();
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      const hit = groups.find(({ group }) => match[group] !== undefined);
      if (hit !== undefined) yield { rule: hit.rule, match, group: hit.group };
    }
  }

  private compile(): NonNullable<RuleSet<Rule>['compiled']> {
    if (this.compiled !== undefined) return this.compiled;
    const groups: { rule: Rule; group: number }[] = [];
    let group = 1;
    const parts = this.rules.map((rule) => {
      groups.push({ rule, group });
      group += 1 + groupCount(rule.pattern);
      return `(${rule.pattern})`;
    });
    this.compiled = { pattern: linearPattern(this.wrap(parts.join('|')), 'g'), groups };
    return this.compiled;
  }
}
