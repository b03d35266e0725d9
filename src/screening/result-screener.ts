import { FindingCollector, type ScreeningReport } from './findings.js';
import { rowsMayHoldFindings } from './row-prefilter.js';
import type { ScreeningPolicy } from './screening-policy.js';
import { hasFindings, inspectString } from './screen-string.js';
import { screenText } from './screen-text.js';
import { KeyFindings, screenJson, screenRow, type Screened } from './screen-value.js';

/**
 * Screens one result while the spill prepares it: a text at once, a JSON
 * value by its strings, a table by its rows (the rows' JSON text is tested in
 * one linear pass first; only a row that may hold something is walked).
 */
export class ResultScreener {
  private readonly collector: FindingCollector;
  private readonly keys = new KeyFindings();

  constructor(readonly policy: ScreeningPolicy) {
    this.collector = new FindingCollector(policy.maxFindings);
  }

  /** False when the policy turns every rule off. */
  get active(): boolean {
    return this.policy.secrets !== 'off' || this.policy.injection !== 'off';
  }

  /** True when the file keeps the original values of redacted secrets (screening.keep). */
  get keepsOriginal(): boolean {
    return this.policy.keep;
  }

  /** The text as the model reads it and as the file keeps it. */
  text(text: string): Screened<string> {
    return this.active ? screenText(text, this.policy, this.collector) : { model: text, file: text };
  }

  json(value: unknown): Screened {
    return this.active ? screenJson(value, this.policy, this.collector, this.keys) : { model: value, file: value };
  }

  /** The rows (indices) that may hold a finding, from one pass over their JSON text; only these need {@link row}. */
  rowsToScreen(lines: readonly string[]): Set<number> {
    return this.active ? rowsMayHoldFindings(lines) : new Set();
  }

  /** The row as the model reads it and the file keeps it, or undefined when it is unchanged (`rowNumber`: 1-based). */
  row(row: unknown, rowNumber: number): Screened | undefined {
    if (!this.active) return undefined;
    return screenRow(row, rowNumber, this.policy, this.collector, this.keys);
  }

  /**
   * Whether a row's own JSON text holds a finding its parsed value did not (the parse kept
   * one of a key given twice, and the other held a secret or an instruction). Counts nothing.
   */
  sourceHoldsMore(source: string): boolean {
    return this.active && hasFindings(inspectString(source, this.policy));
  }

  /** What was found, or undefined when nothing was; `kept`: the file holds the original values. */
  report(kept: boolean): ScreeningReport | undefined {
    const report = this.collector.report(this.policy.secrets === 'flag' ? 'flag' : 'redact');
    if (report !== undefined && report.secrets > 0 && report.secretAction === 'redact') report.kept = kept;
    return report;
  }
}

/**
 * A message as the model would read it (secrets redacted under policy redact, invisible
 * characters escaped), for the places a failed call's message goes besides its result:
 * the caller's error field and its log notifications. Its findings are not counted again.
 */
export function screenMessage(text: string, policy: ScreeningPolicy | undefined): string {
  return policy === undefined ? text : new ResultScreener(policy).text(text).model;
}
