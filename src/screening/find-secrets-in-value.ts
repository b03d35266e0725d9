import { FindingCollector, type Finding } from './findings.js';
import { screenJson } from './screen-value.js';

/** The secrets in a JSON value (a delegating call's expanded arguments), by kind and JSON path; never the values. */
export function findSecretsInValue(value: unknown, maxFindings = 50): { count: number; findings: Finding[] } {
  const collector = new FindingCollector(maxFindings);
  screenJson(value, { secrets: 'flag', injection: 'off', keep: true, maxFindings }, collector);
  return { count: collector.secrets, findings: collector.findings };
}
