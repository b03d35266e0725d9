import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Options, ValidateFunction } from 'ajv';
import { lazyAjv } from '../util/lazy-ajv.js';
import { schemaDigest } from '../util/schema-digest.js';

/** Does a candidate configuration match the schema (no error details: those come from {@link explainingValidator}). */
export type ConfigCheck = (candidate: unknown) => boolean;

/** The options both the build-time and the run-time check compile with, so the two accept the same values. */
export const checkOptions: Options = { strict: false, allErrors: false };

// Beside this module in dist/src/config/, written by scripts/compile-config-check.mjs after tsc.
const prebuiltFile = fileURLToPath(new URL('./config-check.cjs', import.meta.url));

interface Prebuilt {
  default: ConfigCheck;
  schemaDigest: string;
}

/**
 * The schema's check: the one compiled at build time when it matches this
 * schema (a start then compiles nothing), else one compiled now.
 */
export function configCheck(schema: object): ConfigCheck {
  return prebuiltConfigCheck(schema) ?? new (lazyAjv())(checkOptions).compile(schema);
}

/** The check compiled at build time, if there is one and it was compiled from this schema. */
export function prebuiltConfigCheck(schema: object): ConfigCheck | undefined {
  if (!existsSync(prebuiltFile)) return undefined;
  const prebuilt = createRequire(import.meta.url)(prebuiltFile) as Prebuilt;
  return prebuilt.schemaDigest === schemaDigest(schema) ? prebuilt.default : undefined;
}

/** Compiled only when a configuration fails: every problem, with the schema beside each (for "allowed keys" hints). */
export function explainingValidator(schema: object): ValidateFunction {
  // verbose: errors carry parentSchema, so an unknown key can list the allowed ones.
  return new (lazyAjv())({ allErrors: true, strict: false, verbose: true }).compile(schema);
}
