import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configSchemaFile, defaultConfigFile, loadConfig } from '../../src/config/load-config.js';
import { packageRoot } from '../../src/config/package-root.js';
import { createHost } from '../../src/runtime/create-host.js';
import type { ListedTool } from '../../src/host/tool.js';
import { renderConfigurationReference } from './render-configuration-reference.js';
import { renderToolReference } from './render-tool-reference.js';

export interface GeneratedDoc {
  /** Absolute path of the committed file. */
  file: string;
  content: string;
}

/**
 * The built-in tools exactly as a host with the default configuration
 * registers them (in a throwaway sandbox, so nothing real is touched).
 */
export async function builtinToolDefinitions(): Promise<ListedTool[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-docs-'));
  try {
    const config = loadConfig({ env: {}, overrides: { sandbox: { root: path.join(dir, 'sandbox') }, data: { dir: path.join(dir, 'data') }, log: { level: 'silent' } } });
    const host = await createHost({ config });
    try {
      return host.listTools();
    } finally {
      await host.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every generated page with the content the generator would write. */
export async function generatedDocs(): Promise<GeneratedDoc[]> {
  const schema = JSON.parse(readFileSync(configSchemaFile, 'utf8')) as Record<string, unknown>;
  const defaults = JSON.parse(readFileSync(defaultConfigFile, 'utf8')) as unknown;
  return [
    { file: path.join(packageRoot, 'docs', 'tools.md'), content: renderToolReference(await builtinToolDefinitions()) },
    { file: path.join(packageRoot, 'docs', 'configuration.md'), content: renderConfigurationReference(schema, defaults) },
  ];
}
