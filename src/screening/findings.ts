import type { InjectionKind } from './injection-rules.js';
import type { InvisibleKind } from './invisible-unicode.js';
import type { SecretKind } from './secret-rules.js';

export type FindingCategory = 'secret' | 'injection' | 'invisible';

/** One thing screening found, by kind and place; never the value. */
export interface Finding {
  category: FindingCategory;
  kind: SecretKind | InjectionKind | InvisibleKind;
  /** Tables: the row (1-based, as the model counts lines of the file). */
  row?: number;
  /** Tables: the column, or a JSON path below it ("author.email"). JSON: the path from the root ("items[3].body"). */
  field?: string;
  /** Text: the line (1-based). */
  line?: number;
}

/** What screening found in one result: the counts (complete) and the places (the first `maxFindings`). */
export interface ScreeningReport {
  /** What was done with the secrets: redacted in what the model reads, or only flagged. */
  secretAction: 'redact' | 'flag';
  secrets: number;
  injections: number;
  invisible: number;
  /** Secrets per kind. */
  kinds: Record<string, number>;
  findings: Finding[];
  /** Findings beyond maxFindings, counted but not listed. */
  unlisted?: number;
  /** true when the spill file still holds the original values (screening.keep); false when the file holds what the model read. */
  kept?: boolean;
}

/** Collects findings for one result, listing at most `max` of them. */
export class FindingCollector {
  secrets = 0;
  injections = 0;
  invisible = 0;
  readonly kinds: Record<string, number> = {};
  readonly findings: Finding[] = [];
  private unlisted = 0;

  constructor(private readonly max: number) {}

  add(finding: Finding): void {
    if (finding.category === 'secret') {
      this.secrets += 1;
      this.kinds[finding.kind] = (this.kinds[finding.kind] ?? 0) + 1;
    } else if (finding.category === 'injection') this.injections += 1;
    else this.invisible += 1;
    if (this.findings.length < this.max) this.findings.push(finding);
    else this.unlisted += 1;
  }

  get empty(): boolean {
    return this.secrets + this.injections + this.invisible === 0;
  }

  report(secretAction: 'redact' | 'flag'): ScreeningReport | undefined {
    if (this.empty) return undefined;
    const report: ScreeningReport = {
      secretAction,
      secrets: this.secrets,
      injections: this.injections,
      invisible: this.invisible,
      kinds: this.kinds,
      findings: this.findings,
    };
    if (this.unlisted > 0) report.unlisted = this.unlisted;
    return report;
  }
}
