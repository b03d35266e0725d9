import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import type { ListedTool } from '../host/tool.js';
import { startUpstreams } from '../upstream/start-upstreams.js';
import { createHost } from './create-host.js';

/**
 * The built-in tools exactly as `spillway serve` with the default configuration offers
 * them, from a host in a throwaway sandbox (nothing real is touched): what the docs
 * generator lists and what the build compiles argument checks for.
 */
export async function builtinToolDefinitions(): Promise<ListedTool[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-builtins-'));
  try {
    const config = loadConfig({
      env: {},
      overrides: { sandbox: { root: path.join(dir, 'sandbox') }, data: { dir: path.join(dir, 'data') }, log: { level: 'silent' } },
    });
    const host = await createHost({ config });
    try {
      // As `spillway serve` offers them: list_upstreams comes with the upstream manager, configured upstreams or not.
      startUpstreams(host);
      return host.listTools();
    } finally {
      await host.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
