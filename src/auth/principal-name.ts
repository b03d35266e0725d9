import { SpillwayError } from '../errors.js';

const principalPattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/**
 * A principal name from a credential (a bearer token's configured name, an
 * OAuth claim) as a folder name, or PRINCIPAL_INVALID with the reason. The
 * sandbox checks it again where it becomes a folder; refusing here turns a
 * token whose claim cannot name a folder into a clear 401.
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
  return name;
}
