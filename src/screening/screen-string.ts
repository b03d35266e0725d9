import { findInjections, type InjectionKind } from './injection-rules.js';
import { textMayHoldFindings } from './row-prefilter.js';
import { escapeInvisible, findInvisible, hasInvisible, type InvisibleKind } from './invisible-unicode.js';
import type { ScreeningPolicy } from './screening-policy.js';
import { findSecrets, isGenericSecretValue, isSecretName, type SecretKind, type SecretMatch } from './secret-rules.js';

/** What one string holds, in order of position. */
export interface StringFindings {
  secrets: SecretMatch[];
  injections: { kind: InjectionKind; start: number }[];
  invisible: { kind: InvisibleKind; start: number }[];
}

/** A string under a secret-like field name ("password", "aws_secret_access_key") that is itself the secret. */
function fieldSecret(field: string | undefined, value: string): SecretKind | undefined {
  if (field === undefined || !isSecretName(field) || !isGenericSecretValue(value)) return undefined;
  return /aws/i.test(field) && /secret/i.test(field) && /^[A-Za-z0-9/+=]{40}$/.test(value) ? 'aws-secret-key' : 'generic-secret';
}

/** Runs every rule the policy asks for over one string (`field`: the name it stands under, for the generic rule). */
export function inspectString(text: string, policy: ScreeningPolicy, field?: string): StringFindings {
  const found: StringFindings = { secrets: [], injections: [], invisible: [] };
  // One linear pass tells a clean string (most of them) from one the rules must look at.
  const suspect = textMayHoldFindings(text);
  if (policy.secrets !== 'off') {
    if (suspect) found.secrets = findSecrets(text);
    if (found.secrets.length === 0) {
      const kind = fieldSecret(field, text);
      if (kind !== undefined) found.secrets.push({ kind, start: 0, end: text.length });
    }
  }
  if (policy.injection !== 'off' && suspect) {
    found.injections = findInjections(text);
    if (hasInvisible(text)) found.invisible = findInvisible(text);
  }
  return found;
}

/**
 * The string as the model reads it (`for: "model"`: secrets replaced by
 * `[REDACTED:kind]` under policy redact, invisible characters escaped) or as
 * the file keeps it (`for: "file"`: redacted unless screening.keep; invisible
 * characters stay, they are data).
 */
export function rewriteString(text: string, found: StringFindings, policy: ScreeningPolicy, target: 'model' | 'file' = 'model'): string {
  let out = text;
  const redact = policy.secrets === 'redact' && (target === 'model' || !policy.keep);
  if (redact && found.secrets.length > 0) {
    const parts: string[] = [];
    let at = 0;
    for (const secret of found.secrets) {
      if (secret.start < at) continue;
      parts.push(text.slice(at, secret.start), `[REDACTED:${secret.kind}]`);
      at = secret.end;
    }
    parts.push(text.slice(at));
    out = parts.join('');
  }
  return target === 'model' && found.invisible.length > 0 ? escapeInvisible(out) : out;
}

export function hasFindings(found: StringFindings): boolean {
  return found.secrets.length + found.injections.length + found.invisible.length > 0;
}
