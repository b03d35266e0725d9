import type { Host } from '../host/host.js';
import { probeSandboxWrite } from './sandbox-probe.js';

/** One check's result as /healthz shows it. */
export interface CheckResult {
  ok: boolean;
  error?: string;
}

export interface ReplicaHealth {
  /** True when every check passed. */
  ok: boolean;
  checks: Record<string, CheckResult>;
}

/**
 * Whether this replica can serve: the sandbox root takes a real write, and
 * each check the host's services registered (the coordination store answers)
 * passes. Checks run together; one that throws fails only itself.
 */
export async function checkReplicaHealth(host: Host, options: { probeTimeoutMs?: number } = {}): Promise<ReplicaHealth> {
  const checks: [string, () => Promise<void>][] = [['sandbox', () => probeSandboxWrite(host.sandbox.root, options.probeTimeoutMs)], ...host.listHealthChecks()];
  const results = await Promise.all(
    checks.map(async ([name, check]): Promise<[string, CheckResult]> => {
      try {
        await check();
        return [name, { ok: true }];
      } catch (error) {
        return [name, { ok: false, error: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  return { ok: results.every(([, result]) => result.ok), checks: Object.fromEntries(results) };
}
