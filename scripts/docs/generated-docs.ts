import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configSchemaFile, defaultConfigFile, loadConfig } from '../../src/config/load-config.js';
import { packageRoot } from '../../src/config/package-root.js';
import { configSchema } from '../../src/config/schema.js';
import { defaultsOf } from '../../src/config/schema-defaults.js';
import { createHost } from '../../src/runtime/create-host.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import type { ListedTool } from '../../src/host/tool.js';
import { renderConfigurationReference } from './render-configuration-reference.js';
import { renderToolReference } from './render-tool-reference.js';

export interface GeneratedDoc {
  /** Absolute path of the committed file. */
  file: string;
  content: string;
}

/**
 * The built-in tools exactly as `spillway serve` with the default configuration
 * offers them (in a throwaway sandbox, so nothing real is touched).
 */
export async function builtinToolDefinitions(): Promise<ListedTool[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-docs-'));
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

/** A JSON file as committed: two-space indent, final newline (TypeBox's symbol keys are dropped). */
function jsonFile(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Every generated file with the content the generator would write: the two
 * reference pages, and config/schema.json and config/default.json from the
 * configuration schema in src/config/schema.ts.
 */
export async function generatedDocs(): Promise<GeneratedDoc[]> {
  // Through JSON, as a reader of the committed files sees them.
  const schema = JSON.parse(jsonFile(configSchema)) as Record<string, unknown>;
  const defaults = defaultsOf(schema);
  return [
    { file: path.join(packageRoot, 'docs', 'tools.md'), content: renderToolReference(await builtinToolDefinitions()) },
    { file: path.join(packageRoot, 'docs', 'configuration.md'), content: renderConfigurationReference(schema, defaults) },
    { file: configSchemaFile, content: jsonFile(schema) },
    { file: defaultConfigFile, content: jsonFile(defaults) },
  ];
}
