import { shannonEntropy } from './entropy.js';
import { RuleSet } from './linear-regexp.js';

/** The kinds of secret spillway detects; the model reads them in `[REDACTED:kind]`. */
export type SecretKind =
  | 'aws-access-key'
  | 'aws-secret-key'
  | 'github-token'
  | 'slack-token'
  | 'stripe-key'
  | 'google-api-key'
  | 'private-key'
  | 'jwt'
  | 'connection-string'
  | 'generic-secret';

/**
 * One rule of the gitleaks/secretlint families, in RE2 syntax (no lookaround,
 * no backreferences). `secret` is the capture group that holds the value to
 * redact (0: the whole match); `accept` rejects near-misses the pattern lets through.
 * `anchor` matches where every match of `pattern` starts (short, with no long
 * counted repeats, so the prefilter that joins the anchors stays a small DFA).
 */
interface SecretRule {
  kind: SecretKind | 'skip';
  pattern: string;
  anchor: string;
  secret?: number;
  /** Removed from the end of the value before it is judged: the punctuation that closes a sentence or a bracket around it. */
  trim?: RegExp;
  accept?: (value: string) => boolean;
}

/** Line breaks in a text, or written as JSON escapes (a key pasted into a JSON string); blank lines included. */
const pemLineBreak = '(?:[ \\t]*(?:\\r?\\n|\\\\r\\\\n|\\\\n))+[ \\t]*';

/** Shannon bits per character a generic value needs to count as a secret (random base64 is ~6, English words ~3, "password123" ~3.3). */
export const genericEntropyThreshold = 3.2;
const genericMinChars = 8;

/** Names a secret stands next to (a field name, or `name=`/`name:` in text). */
export const secretNamePattern =
  '(?i:passwords?|passwd|pwd|pass_?phrase|secrets?|client_?secret|(?:access|auth|refresh|bearer|api|session|private)[_-]?(?:tokens?|keys?)|tokens?|api[_-]?keys?|apikey|credentials?|private[_-]?key)';

/** Field names whose values are hashes or ids by design; a value under them is never a generic secret. */
const hashLikeName = /sha\d*|md5|hash|etag|commit|checksum|digest|uuid|(?:^|[_-])ids?$|nonce_?count|tokens?_?(?:count|usage|type|limit)|max_?tokens/i;
const secretName = new RegExp(`(?:^|[^A-Za-z])${secretNamePattern.replace('(?i:', '(?:')}(?:$|[^A-Za-z])`, 'i');
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const placeholder =
  /^(?:\*+|x+|\.+|-+|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%[A-Za-z_]+%|(?:your|my|the)[_-]?\w*|changeme|redacted|password|secret|null|none|undefined|true|false|example\w*)$/i;

/** Whether a value next to a secret-like name looks random enough to be one (not a UUID, a placeholder, a number or a word). */
export function isGenericSecretValue(value: string): boolean {
  if (value.length < genericMinChars || value.length > 512) return false;
  if (/\s/.test(value) || uuid.test(value) || placeholder.test(value) || /^[\d.,:-]+$/.test(value)) return false;
  if (value.startsWith('[REDACTED:') || /^[A-Za-z]+(?:[-_.][A-Za-z]+)*$/.test(value)) return false;
  // Words joined by dashes are names ("slack-token"), not secrets: a secret mixes at least two of lower, upper, digits, symbols.
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z\d]/].filter((pattern) => pattern.test(value)).length;
  return classes >= 2 && shannonEntropy(value) >= genericEntropyThreshold;
}

/** True for a field name a secret goes under ("password", "api_key", "GITHUB_TOKEN"), false for hash-like names ("sha256", "etag"). */
export function isSecretName(name: string): boolean {
  return secretName.test(name) && !hashLikeName.test(name);
}

const passwordPart = (value: string) => !placeholder.test(value) && !/^\$|^%|^\{/.test(value);

/** The rule set, in the order the combined pattern tries them at one position. */
const secretRules: readonly SecretRule[] = [
  // Base64 payloads (images, fonts) are consumed whole so nothing inside them matches by chance.
  { kind: 'skip', pattern: 'data:[A-Za-z]+/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=]{16,}', anchor: 'data:' },
  {
    kind: 'private-key',
    anchor: '-----BEGIN [A-Z0-9 ]*PRIVATE KEY',
    // Without an END line (a cut-off key) only what looks like the key's body goes: whole lines of
    // headers ("Proc-Type: 4,ENCRYPTED") and then of base64, each line break real or written `\n`.
    pattern: `-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|${pemLineBreak}(?:[A-Za-z-]+: [^\\r\\n\\\\]*${pemLineBreak})*(?:[A-Za-z0-9+/=]+${pemLineBreak})*(?:[A-Za-z0-9+/=]+[ \\t]*$)?)`,
    // The line break after the body's last line stays with the text that follows.
    trim: /(?:\s|\\[rn])+$/,
  },
  {
    kind: 'aws-access-key',
    pattern: '\\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z2-7]{16}\\b',
    anchor: '(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z2-7]{16}',
  },
  {
    kind: 'aws-secret-key',
    anchor: '(?i:aws)[A-Za-z0-9_.-]{0,24}(?i:secret)',
    pattern: '(?i:aws)[A-Za-z0-9_.-]{0,24}(?i:secret)[A-Za-z0-9_.-]{0,24}["\']?\\s*[:=]\\s*["\']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)',
    secret: 1,
  },
  {
    kind: 'github-token',
    pattern: '\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\\b',
    anchor: 'gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22}',
  },
  { kind: 'slack-token', pattern: '\\bxox[abposr]-[A-Za-z0-9-]{10,250}', anchor: 'xox[abposr]-[A-Za-z0-9-]{10}' },
  { kind: 'stripe-key', pattern: '\\b(?:sk|rk)_live_[A-Za-z0-9]{20,247}\\b', anchor: '(?:sk|rk)_live_[A-Za-z0-9]{20}' },
  { kind: 'google-api-key', pattern: '\\bAIza[0-9A-Za-z_-]{35}', anchor: 'AIza[0-9A-Za-z_-]{35}' },
  { kind: 'jwt', pattern: '\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*', anchor: 'eyJ[A-Za-z0-9_-]{8,}\\.eyJ' },
  {
    kind: 'connection-string',
    anchor: '(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver|ftp|sftp|smtp|ldap)://',
    pattern:
      '\\b(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver|ftp|sftp|smtp|ldap)://[^\\s:/@"\'<>]*:([^\\s@/"\'<>]+)@[^\\s"\'<>]+',
    accept: passwordPart,
  },
  {
    kind: 'generic-secret',
    anchor: secretNamePattern,
    // Punctuation inside the value (`?`, `;`, `,`, `:`) is part of the password; at its end it closes the sentence.
    // Brackets and braces end it: `${DB_PASSWORD}` and `<password>` are placeholders, not values.
    pattern: `${secretNamePattern}[A-Za-z0-9_-]{0,20}["']?\\s*[:=]\\s*["']?([A-Za-z0-9_+/=.~!@#$%^&*?:;,-]{${genericMinChars},512})`,
    secret: 1,
    trim: /[,;:?]+$/,
    accept: isGenericSecretValue,
  },
];

/** One secret found in a text: where (UTF-16 offsets of the value to redact) and what kind. */
export interface SecretMatch {
  kind: SecretKind;
  start: number;
  end: number;
}

const rules = new RuleSet(secretRules);

/** Every secret the rules find in `text`, in order. */
export function findSecrets(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  for (const { rule, match, group } of rules.matches(text)) {
    if (rule.kind === 'skip') continue;
    const secretGroup = rule.secret === undefined ? group : group + rule.secret;
    const matched = match[secretGroup] ?? match[0];
    const value = rule.trim === undefined ? matched : matched.replace(rule.trim, '');
    if (rule.accept !== undefined && !rule.accept(rule.kind === 'connection-string' ? (match[group + 1] ?? '') : value)) continue;
    // The value starts where its group does (trimming only shortens it at the end).
    const offset = rule.secret === undefined ? 0 : match[0].lastIndexOf(matched);
    const start = match.index + Math.max(0, offset);
    found.push({ kind: rule.kind, start, end: start + value.length });
  }
  return found;
}

/** The anchor of every rule (where each match starts), for the prefilter that decides whether a text or row needs a closer look. */
export function secretRuleAnchors(): string[] {
  return secretRules.filter((rule) => rule.kind !== 'skip').map((rule) => rule.anchor);
}
