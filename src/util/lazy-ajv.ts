import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';

/**
 * ajv's class, loaded on first use (ajv is CommonJS, so synchronously): a start whose
 * checks were all compiled at build time loads none of ajv (~40 ms of a `spillway call`).
 */
export function lazyAjv(): typeof Ajv {
  return (createRequire(import.meta.url)('ajv') as { Ajv: typeof Ajv }).Ajv;
}
