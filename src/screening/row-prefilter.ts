import { linearPattern, type Re2Pattern } from './linear-regexp.js';
import { hasInvisible } from './invisible-unicode.js';
import { secretNamePattern, secretRuleSources } from './secret-rules.js';

/**
 * Loose anchors of the injection rules: they must match the serialized row
 * too, where a line break inside a value is the two characters `\n` and quotes are `\"`.
 */
const injectionAnchors =
  '<\\||\\[/?INST\\]|<</?SYS>>|(?i:system|assistant|developer)[ \\t]*:|#{2,}|' +
  '(?i:ignore|disregard|forget|override|bypass|you\\s+are\\s+now|instructions?\\s*:|do\\s+not\\s+(?:tell|inform|alert|mention)|system\\s+prompt|hidden\\s+instructions|initial\\s+instructions|tool_calls?|function_calls?|tool_use|invoke|\\\\?"arguments|\\\\?"parameters)';
/** Invisible characters written as JSON escapes in a row's own source text. */
const escapedInvisible = '\\\\u(?i:202[a-e]|206[0-9]|200[b-f]|feff|db40)';

let trigger: Re2Pattern | undefined;

/**
 * One linear pass over a row's JSON text that is true whenever any rule
 * could match inside it (a superset): a row it passes over is clean without
 * being walked, which keeps screening inside the spill's own pass.
 */
export function rowMayHoldFindings(line: string): boolean {
  trigger ??= linearPattern([...secretRuleSources(), secretNamePattern, injectionAnchors, escapedInvisible].map((source) => `(?:${source})`).join('|'));
  return trigger.test(line) || hasInvisible(line);
}
