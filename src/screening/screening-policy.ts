import type { Config } from '../config/schema.js';
import { mostSpecificMatch } from '../util/tool-pattern.js';

/** What happens to secrets found in a result. */
export type SecretAction = 'redact' | 'flag' | 'off';
/** What happens to instruction-shaped text and invisible Unicode. */
export type InjectionAction = 'flag' | 'off';

/** The screening rules in force for one tool's results. */
export interface ScreeningPolicy {
  secrets: SecretAction;
  injection: InjectionAction;
  /** true: the spill file keeps the original values (the model still reads them redacted). */
  keep: boolean;
  /** Most findings listed by place in one result's metadata (the counts are always complete). */
  maxFindings: number;
}

/**
 * Whether some tool's spill files keep the original values of redacted secrets
 * (`secrets: redact` with `keep`, by default or for a pattern).
 */
function someFilesKeepSecrets(config: Config): boolean {
  const screening = config.screening;
  const keeps = (entry: { secrets?: SecretAction; keep?: boolean }) => (entry.secrets ?? screening.secrets) === 'redact' && (entry.keep ?? screening.keep);
  return keeps({}) || Object.values(screening.tools).some(keeps);
}

/**
 * The policy for one tool: `screening.tools` (most specific pattern wins) over the defaults.
 * `readsConversationFiles`: the tool's results show what the conversation's files hold
 * (read_file, search_files, query_files, a script). While some tool's files keep original
 * values, such a tool redacts secrets whatever its own setting, so a kept original is read
 * back redacted, as it was first shown, and never through another tool's weaker policy.
 */
export function screeningPolicy(config: Config, tool: string, readsConversationFiles = false): ScreeningPolicy {
  const screening = config.screening;
  const override = mostSpecificMatch(screening.tools, tool) ?? {};
  const secrets = override.secrets ?? screening.secrets;
  return {
    secrets: readsConversationFiles && secrets !== 'redact' && someFilesKeepSecrets(config) ? 'redact' : secrets,
    injection: override.injection ?? screening.injection,
    keep: override.keep ?? screening.keep,
    maxFindings: screening.maxFindings,
  };
}
