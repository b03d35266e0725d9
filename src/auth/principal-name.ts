import { SpillwayError } from '../errors.js';
import { defaultPrincipal } from '../sandbox/layout.js';

const principalPattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/**
 * A principal name from a credential (a bearer token's configured name, an
 * OAuth claim) as a folder name, or PRINCIPAL_INVALID with the reason. The
 * sandbox checks it again where it becomes a folder; refusing here turns a
 * token whose claim cannot name a folder into a clear 401.
 *
 * No credential may name the local principal (`local`, in any letter case,
 * since a case-insensitive file system makes `LOCAL` the same folder): that
 * folder belongs to stdio, the CLI and auth none, and a user of the identity
 * provider whose `sub` happens to be "local" must not reach it
 * (details.reason "reserved"). Every other name keeps its folder as it is.
 */
export function checkPrincipalName(name: unknown, source: string): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new SpillwayError('PRINCIPAL_INVALID', `${source} holds no principal name.`, { source, reason: 'missing' });
  }
  if (!principalPattern.test(name)) {
    throw new SpillwayError(
      'PRINCIPAL_INVALID',
      `${source} is not usable as a principal name (letters, digits, ".", "_", "@", "-"; at most 64; not starting with a dot).`,
      {
        source,
        reason: 'characters',
      },
    );
  }
  if (isReservedPrincipal(name)) {
    throw new SpillwayError(
      'PRINCIPAL_INVALID',
      `${source} names "${name}", which is reserved: "${defaultPrincipal}" is the principal of stdio, the CLI and auth none, and no credential may stand for it. Use another name.`,
      { source, reason: 'reserved' },
    );
  }
  return name;
}

/** Whether a name is the local principal's, whatever its letter case. */
export function isReservedPrincipal(name: string): boolean {
  return name.toLowerCase() === defaultPrincipal;
}
