import { Type } from '../../util/type-builder.js';
import { integerKey, section } from './parts.js';

/** Configuration keys for the retention sweep and the disk quota. */

export const retentionSchema = section('The cleanup sweep. outputs/ is never touched.', {
  days: Type.Number({
    exclusiveMinimum: 0,
    default: 7,
    description: 'Files in results/, errors/, args/ and scripts/ older than this many days are deleted.',
  }),
  cron: Type.String({ minLength: 9, default: '0 */6 * * *', description: 'When `spillway serve` runs the sweep (node-cron syntax, 5 or 6 fields).' }),
  maxBytes: integerKey(0, 0, 'Quota for the whole sandbox in bytes (0 = none); the oldest non-output files go first.'),
  maxBytesPerConversation: integerKey(0, 0, 'Quota per conversation in bytes (0 = none).'),
  tempGraceMs: integerKey(
    1000,
    600_000,
    'Temporary files (and spill sidecars without their data) older than this are leftovers of an interrupted write: start-up and every sweep remove them from every folder, outputs/ included.',
  ),
});
