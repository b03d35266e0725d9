import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/schema.js';
import { createHost, type CreateHostOptions } from '../../src/runtime/create-host.js';
import type { Host } from '../../src/host/host.js';

export interface TempHost {
  host: Host;
  config: Config;
  /** Temporary folder holding sandbox/ and data/. */
  dir: string;
  sandboxRoot: string;
  cleanup(): Promise<void>;
}

/** A config whose sandbox and data folders live in a fresh temporary folder; the caller removes `dir` (after closing what uses it). */
export async function tempConfig(overrides: Record<string, unknown> = {}): Promise<{ config: Config; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-test-'));
  const config = loadConfig({
    env: {},
    overrides: { sandbox: { root: path.join(dir, 'sandbox') }, data: { dir: path.join(dir, 'data') }, log: { level: 'silent' }, ...overrides },
  });
  return { config, dir };
}

/** A real host over a temporary sandbox; call cleanup() when done. */
export async function tempHost(overrides: Record<string, unknown> = {}, options: Omit<CreateHostOptions, 'config'> = {}): Promise<TempHost> {
  const { config, dir } = await tempConfig(overrides);
  const host = await createHost({ ...options, config });
  return {
    host,
    config,
    dir,
    sandboxRoot: host.sandbox.root,
    async cleanup() {
      // The host stops its own children (upstreams, query processes, workers) before it resolves.
      try {
        await host.close();
      } finally {
        await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      }
    },
  };
}

/** n synthetic table rows with stable values (for spill and export tests). */
export function makeRows(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, index) => ({
    id: index + 1,
    name: `item-${index + 1}`,
    amount: Math.round((index * 37.13) % 1000) / 10 - 20,
    active: index % 3 === 0,
    note: index % 50 === 0 ? '=SUM(A1:A2)' : `libpthread.so.0 row ${index}`,
  }));
}
