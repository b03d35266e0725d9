import { SpillwayError } from '../errors.js';

export interface SessionCaps {
  /** Open sessions at most (server.maxSessions). */
  maxSessions: number;
  /** Open sessions of one principal at most (server.maxSessionsPerPrincipal). */
  maxSessionsPerPrincipal: number;
}

export interface SessionAdmission {
  /** SESSION_LIMIT when one more session for `principal` would pass a cap; details.scope says which. */
  check(principal: string): SpillwayError | undefined;
  /** Runs the opening of a session, counting it against the caps until it ends (by then it is open, or nothing is). */
  opening<T>(principal: string, open: () => Promise<T>): Promise<T>;
}

/**
 * Admission of new MCP sessions against the global and per-principal caps.
 * Sessions still being opened count, so concurrent initialize requests
 * cannot pass a cap together.
 */
export function sessionAdmission(caps: SessionCaps, openSessions: () => Iterable<{ principal: string }>): SessionAdmission {
  const pending = new Map<string, number>();
  return {
    check(principal) {
      let all = 0;
      let mine = pending.get(principal) ?? 0;
      for (const count of pending.values()) all += count;
      for (const session of openSessions()) {
        all += 1;
        if (session.principal === principal) mine += 1;
      }
      if (all >= caps.maxSessions) {
        return new SpillwayError(
          'SESSION_LIMIT',
          `This server has ${all} MCP sessions open, its cap (server.maxSessions = ${caps.maxSessions}); close one or retry later.`,
          { scope: 'server', open: all, limit: caps.maxSessions },
        );
      }
      if (mine >= caps.maxSessionsPerPrincipal) {
        return new SpillwayError(
          'SESSION_LIMIT',
          `Principal "${principal}" has ${mine} MCP sessions open, its cap (server.maxSessionsPerPrincipal = ${caps.maxSessionsPerPrincipal}); close one (DELETE) or retry later.`,
          { scope: 'principal', principal, open: mine, limit: caps.maxSessionsPerPrincipal },
        );
      }
      return undefined;
    },
    async opening(principal, open) {
      pending.set(principal, (pending.get(principal) ?? 0) + 1);
      try {
        return await open();
      } finally {
        const left = (pending.get(principal) ?? 1) - 1;
        if (left === 0) pending.delete(principal);
        else pending.set(principal, left);
      }
    },
  };
}
