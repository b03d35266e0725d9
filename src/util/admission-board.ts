import { AdmissionGate, type AdmissionGateOptions, type GateStats } from './admission-gate.js';

/**
 * The admission gates of one host, by queue name ("exports", "sql",
 * "upstream:github"): capabilities open theirs here, /healthz and the metrics
 * read them all. Opening a name twice returns the same gate, so every tool of
 * one upstream shares its caps.
 */
export class AdmissionBoard {
  private readonly gates = new Map<string, AdmissionGate>();

  constructor(private readonly defaults: Pick<AdmissionGateOptions, 'timers'> = {}) {}

  gate(options: AdmissionGateOptions): AdmissionGate {
    const existing = this.gates.get(options.name);
    if (existing !== undefined) return existing;
    const gate = new AdmissionGate({ ...this.defaults, ...options });
    this.gates.set(options.name, gate);
    return gate;
  }

  /** Every queue's counts, by name. */
  report(): Record<string, GateStats> {
    return Object.fromEntries([...this.gates].map(([name, gate]) => [name, gate.stats()]));
  }
}
