/**
 * Argument checks of spillway's own tools compiled at build time
 * (scripts/compile-tool-checks.mjs writes dist/src/host/tool-checks/<name>.cjs with ajv's
 * standalone code), each named by the digest of the schema it was compiled from: a call
 * whose tool's schema is the one built loads that check instead of ajv and a compile.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaDigest } from '../util/schema-digest.js';

/** What a prebuilt check says: the arguments pass or not (the explanation is compiled on failure). */
export type PrebuiltCheck = (args: unknown) => boolean;

/** The options the build compiles with: the ones ArgumentValidator compiles with, minus the error detail. */
export const prebuiltCheckOptions = { strict: false, validateFormats: false, allErrors: false } as const;

/** The file name (without .cjs) of a schema's check in dist/src/host/tool-checks/. */
export const prebuiltCheckName = (schema: object): string => `schema_${schemaDigest(schema)}`;

// Beside this module in dist/src/host/, written by scripts/compile-tool-checks.mjs after tsc.
const prebuiltFolder = fileURLToPath(new URL('./tool-checks/', import.meta.url));

/** The check built for exactly this schema, if the build made one (only that tool's check is loaded). */
export function prebuiltToolCheck(schema: object): PrebuiltCheck | undefined {
  const file = path.join(prebuiltFolder, `${prebuiltCheckName(schema)}.cjs`);
  if (!existsSync(file)) return undefined;
  return (createRequire(import.meta.url)(file) as { default: PrebuiltCheck }).default;
}
