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

/** The policy for one tool: `screening.tools` (most specific pattern wins) over the defaults. */
export function screeningPolicy(config: Config, tool: string): ScreeningPolicy {
  const screening = config.screening;
  const override = mostSpecificMatch(screening.tools, tool) ?? {};
  return {
    secrets: override.secrets ?? screening.secrets,
    injection: override.injection ?? screening.injection,
    keep: override.keep ?? screening.keep,
    maxFindings: screening.maxFindings,
  };
}
