import { RuleSet } from './linear-regexp.js';

/** What kind of instruction-shaped text a result holds. */
export type InjectionKind = 'role-marker' | 'override-instruction' | 'tool-call-text';

interface InjectionRule {
  kind: InjectionKind;
  pattern: string;
}

/**
 * Text that tries to speak to the model rather than be data: chat-template
 * role markers, "ignore previous instructions" and its kin, and text shaped
 * like a tool call. Flagged, never removed: a ticket that quotes a prompt is
 * still the ticket. RE2 syntax, all case-insensitive.
 */
const injectionRules: readonly InjectionRule[] = [
  {
    kind: 'role-marker',
    pattern:
      '<\\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\\|>|\\[/?INST\\]|<</?SYS>>|(?m:^[ \\t]*(?:system|assistant|developer)[ \\t]*:[ \\t]*\\S)|(?m:^[ \\t]*#{2,}[ \\t]*(?:instructions?|system(?: prompt)?|new instructions?)\\b)',
  },
  {
    kind: 'override-instruction',
    pattern:
      '\\b(?:ignore|disregard|forget|override|bypass)\\s+(?:all\\s+|any\\s+|the\\s+|your\\s+|of\\s+|these\\s+)*(?:previous|prior|above|earlier|preceding|former|system|original)\\s+(?:instructions?|prompts?|rules?|directions?|guidelines?|messages?|context)' +
      '|\\byou\\s+are\\s+now\\s+(?:in\\s+)?(?:developer|dan|jailbreak|unrestricted|god)\\b' +
      '|\\bnew\\s+(?:system\\s+)?instructions?\\s*:' +
      '|\\bdo\\s+not\\s+(?:tell|inform|alert|mention\\s+(?:this\\s+)?to)\\s+the\\s+user\\b' +
      '|\\b(?:reveal|print|output|repeat)\\s+(?:your|the)\\s+(?:system\\s+prompt|hidden\\s+instructions|initial\\s+instructions)',
  },
  {
    kind: 'tool-call-text',
    pattern:
      '</?(?:tool_call|function_call|function_calls|tool_use|invoke)\\b[^>]{0,200}>|"(?:tool_calls|function_call)"\\s*:\\s*[\\[{]|\\{\\s*"name"\\s*:\\s*"[A-Za-z0-9_.-]{1,64}"\\s*,\\s*"(?:arguments|parameters)"\\s*:',
  },
];

/** One instruction-shaped passage: its kind and where it starts. */
export interface InjectionMatch {
  kind: InjectionKind;
  start: number;
}

/**
 * Between words, any Unicode space counts as one: a no-break or thin space ("ignore\u00A0all
 * previous instructions") reads as a space to the model, but RE2's `\s` is ASCII only.
 */
const anySpace = (pattern: string) => pattern.replace(/\\s/g, '[\\s\\p{Zs}]');

const rules = new RuleSet(
  injectionRules.map((rule) => ({ ...rule, pattern: anySpace(rule.pattern) })),
  (alternatives) => `(?i:${alternatives})`,
);

/** Every instruction-shaped passage in `text`, in order. */
export function findInjections(text: string): InjectionMatch[] {
  return Array.from(rules.matches(text), ({ rule, match }) => ({ kind: rule.kind, start: match.index }));
}
