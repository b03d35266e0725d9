import { createHash } from 'node:crypto';

/** A digest of a schema's JSON: a check compiled at build time is used only for the schema it was compiled from. */
export function schemaDigest(schema: object): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}
