/**
 * What replicas coordinate through. Two implementations: in-process
 * (`MemoryCoordinator`: one process, tests, the reference behaviour) and Redis
 * (`RedisCoordinator`: a fleet). Keys are plain strings; the Redis
 * implementation puts `coordination.redis.keyPrefix` in front of them.
 *
 * When the store cannot be reached, every operation rejects with
 * COORDINATION_UNAVAILABLE (details.retryable: true) and nothing is half done:
 * each operation is a single atomic command or script.
 */
export interface Coordinator {
  /** "memory" or "redis", for health reports and metrics. */
  readonly store: string;
  /**
   * Takes the lock `key` for `leaseMs` if nobody holds it, or returns
   * undefined. A holder that dies stops renewing and loses the lock when its
   * lease runs out; release and renew act only while the token is still the
   * holder's, so a holder whose lease ran out can never remove a successor.
   */
  tryLock(key: string, leaseMs: number): Promise<Lease | undefined>;
  /**
   * Adds one to the counter `key` and returns the new value; when the counter
   * is below `atLeast` (missing, or behind what the files show), it continues
   * from `atLeast` instead. Atomic across the fleet: two callers never get the
   * same value.
   */
  increment(key: string, atLeast?: number): Promise<number>;
  /** Appends one entry to the log `key` (kept in order). */
  append(key: string, entry: string): Promise<void>;
  /** The entries of the log `key`, oldest first. */
  readLog(key: string): Promise<string[]>;
  /**
   * Adds `by` (field → amount, negative to subtract) to the counters of every
   * hash in `keys` at once, and returns the new values of the first hash's
   * fields named in `by`. A missing field counts from 0.
   */
  addCounts(keys: readonly string[], by: Readonly<Record<string, number>>): Promise<Record<string, number>>;
  /**
   * Adds `by` to the counters of the hash `key` only while its field
   * `when.field` still holds `when.equals` (nothing replaced the hash since
   * the caller read it); true when added, false when nothing was changed.
   */
  addCountsIf(key: string, by: Readonly<Record<string, number>>, when: { field: string; equals: number }): Promise<boolean>;
  /** Every counter of the hash `key` (empty when missing). */
  readCounts(key: string): Promise<Record<string, number>>;
  /**
   * Replaces the hash `key` with `values`; with `plusFrom`, each counter of
   * that other hash is then added on top (the bytes written while `values`
   * was being measured).
   */
  replaceCounts(key: string, values: Readonly<Record<string, number>>, options?: { plusFrom?: string }): Promise<void>;
  /**
   * Sets the score of each member of the sorted set `key` (a member already
   * there gets the new score), drops the members scored below `dropBelow`,
   * and lets the whole set expire `ttlMs` after this write.
   */
  addScores(key: string, scores: Readonly<Record<string, number>>, options: { dropBelow: number; ttlMs: number }): Promise<void>;
  /** The score of `member` in the sorted set `key`, or undefined. */
  readScore(key: string, member: string): Promise<number | undefined>;
  /** The store's clock in ms: one clock for the whole fleet, whatever each node's own says. */
  timeMs(): Promise<number>;
  /** Resolves when the store answers now; rejects with COORDINATION_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
  /** Whether the store is connected at this moment (no round trip). */
  connected(): boolean;
  close(): Promise<void>;
}

/** A held lock. */
export interface Lease {
  readonly key: string;
  /** Unique per acquisition. */
  readonly token: string;
  /** Extends the lease to `leaseMs` from now; false when it was lost (expired and maybe taken by another). */
  renew(leaseMs: number): Promise<boolean>;
  /** Gives the lock up if it is still ours. Safe to call more than once. */
  release(): Promise<void>;
}
