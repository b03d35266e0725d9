import type { Coordinator } from '../coordination/coordinator.js';
import { withinDeadline } from '../coordination/within-deadline.js';
import type { ExpiryLookup } from '../sandbox/index.js';
import type { ExpiryLog } from './expired-log.js';

const lookupDeadlineMs = 1_000;

/** The coordinator key of a conversation's expiry entries ("<principal>/<conversation>"). */
export function expiryKey(conversationId: string): string {
  return `expired:${conversationId}`;
}

/**
 * The expiry log of a fleet: one sorted set per conversation in the
 * coordination store, member = the removed path, score = when it expired (ms).
 *
 * Why not the `.expired.jsonl` file: replicas record at once (quota evictions
 * on any replica, the sweep on one). O_APPEND is not atomic on NFS, and the
 * file is compacted by rewrite + rename, which drops a line another replica
 * appended meanwhile. A ZADD is one atomic command: concurrent records never
 * lose each other, a path recorded twice keeps its latest time (as the file's
 * last line wins), and the trim (by score, past the keep horizon) and the
 * key's expiry run in the same script, so there is nothing to compact and no
 * lock to wait for. A per-conversation lock around the file would also be
 * sound, but it makes every record wait on Redis and on other replicas.
 *
 * Records are required (removal waits for them): with Redis unreachable the
 * sweep keeps the batch's files and the next sweep records and removes them.
 * The files' own logs stay readable: the lookup falls back to them for entries
 * written before the fleet used Redis or by a `spillway cleanup` run without it.
 */
export function sharedExpiryLog(coordinator: Coordinator): ExpiryLog & { lookup: ExpiryLookup } {
  return {
    required: true,
    record: async ({ conversationId, entries, now, keepMs }) => {
      if (entries.length === 0) return;
      const scores: Record<string, number> = {};
      for (const entry of entries) scores[entry.path] = Date.parse(entry.expiredAt);
      await coordinator.addScores(expiryKey(conversationId), scores, { dropBelow: now.getTime() - keepMs, ttlMs: keepMs });
    },
    lookup: async (conversationId, relative) => {
      // Only the wording of a not-found error depends on it: never wait long (the sandbox then reads the file log).
      const score = await withinDeadline(coordinator.readScore(expiryKey(conversationId), relative), lookupDeadlineMs, coordinator.store);
      return score === undefined ? undefined : new Date(score).toISOString();
    },
  };
}
