import { linearPattern, type Re2Pattern } from './linear-regexp.js';
import { hasInvisible } from './invisible-unicode.js';
import { secretNamePattern, secretRuleSources } from './secret-rules.js';

/**
 * Loose anchors of the injection rules: they must match the serialized row
 * too, where a line break inside a value is the two characters `\n` and quotes are `\"`.
 */
const injectionAnchors =
  '(?i:<\\||\\[/?INST\\]|<</?SYS>>|(?i:system|assistant|developer)[ \\t]*:|#{2,}|' +
  '(?i:ignore|disregard|forget|override|bypass|you\\s+are\\s+now|instructions?\\s*:|do\\s+not\\s+(?:tell|inform|alert|mention)|system\\s+prompt|hidden\\s+instructions|initial\\s+instructions|tool_calls?|function_calls?|tool_use|invoke|\\\\?"arguments|\\\\?"parameters))';
/** Invisible characters written as JSON escapes in a row's own source text. */
const escapedInvisible = '\\\\u(?i:202[a-e]|206[0-9]|200[b-f]|feff|db40)';

let trigger: Re2Pattern | undefined;

function triggerPattern(): Re2Pattern {
  trigger ??= linearPattern(
    // No 'g' flag: a plain test stops at the first accepting state instead of working out where a match ends.
    [...secretRuleSources(), secretNamePattern, injectionAnchors, escapedInvisible].map((source) => `(?:${source})`).join('|'),
  );
  return trigger;
}

/**
 * Builds the prefilter's pattern now (RE2 compiling the union of every rule, ~0.05–0.1 s
 * here) rather than in the first spill that is screened: a served host calls it once up.
 */
export function preparePrefilter(): void {
  triggerPattern();
}

/**
 * One linear pass that is true whenever any rule could match inside the text
 * (a superset): a text it passes over is clean without running each rule.
 */
export function textMayHoldFindings(text: string): boolean {
  return triggerPattern().test(text) || hasInvisible(text);
}

/**
 * The rows (indices) whose JSON text may hold a finding, from linear passes
 * over their text: a row it passes over is clean without being walked, which
 * keeps screening inside the spill's own pass.
 */
export function rowsMayHoldFindings(lines: readonly string[]): Set<number> {
  const flagged = new Set<number>();
  const pattern = triggerPattern();
  const test = (text: string) => pattern.test(text) || hasInvisible(text);
  // Rows are tested a block at a time (one call for 32 clean rows), and one by one only inside
  // a block that matched: calls into RE2 cost more than the scan of a short row.
  for (let first = 0; first < lines.length; first += blockRows) {
    const block = lines.slice(first, first + blockRows);
    if (!test(block.join('\n'))) continue;
    block.forEach((line, index) => {
      if (test(line)) flagged.add(first + index);
    });
  }
  return flagged;
}

const blockRows = 32;
