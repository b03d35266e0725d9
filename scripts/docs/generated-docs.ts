import path from 'node:path';
import { configSchemaFile, defaultConfigFile } from '../../src/config/load-config.js';
import { packageRoot } from '../../src/config/package-root.js';
import { configSchema } from '../../src/config/schema.js';
import { defaultsOf } from '../../src/config/schema-defaults.js';
import { builtinToolDefinitions } from '../../src/runtime/builtin-tool-listing.js';
import { renderConfigurationReference } from './render-configuration-reference.js';
import { renderToolReference } from './render-tool-reference.js';

export interface GeneratedDoc {
  /** Absolute path of the committed file. */
  file: string;
  content: string;
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
