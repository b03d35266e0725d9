import { randomUUID } from 'node:crypto';
import type { Coordinator, Lease } from './coordinator.js';

interface Held {
  token: string;
  expiresAt: number;
}

/**
 * The in-process coordinator: the same contract as Redis within one process
 * (several hosts in a library, tests). The clock is injectable so a lease can
 * run out without waiting.
 */
export class MemoryCoordinator implements Coordinator {
  readonly store = 'memory';
  private readonly locks = new Map<string, Held>();
  private readonly counters = new Map<string, number>();
  private readonly logs = new Map<string, string[]>();
  private readonly hashes = new Map<string, Map<string, number>>();
  private readonly sortedSets = new Map<string, { scores: Map<string, number>; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  timeMs(): Promise<number> {
    return Promise.resolve(this.now());
  }

  tryLock(key: string, leaseMs: number): Promise<Lease | undefined> {
    const held = this.locks.get(key);
    if (held !== undefined && held.expiresAt > this.now()) return Promise.resolve(undefined);
    const token = randomUUID();
    this.locks.set(key, { token, expiresAt: this.now() + leaseMs });
    const isOurs = () => {
      const current = this.locks.get(key);
      return current !== undefined && current.token === token && current.expiresAt > this.now();
    };
    return Promise.resolve({
      key,
      token,
      renew: (ms: number) => {
        if (!isOurs()) return Promise.resolve(false);
        this.locks.set(key, { token, expiresAt: this.now() + ms });
        return Promise.resolve(true);
      },
      release: () => {
        if (isOurs()) this.locks.delete(key);
        return Promise.resolve();
      },
    });
  }

  increment(key: string, atLeast = 0): Promise<number> {
    const next = Math.max(this.counters.get(key) ?? 0, atLeast) + 1;
    this.counters.set(key, next);
    return Promise.resolve(next);
  }

  append(key: string, entry: string): Promise<void> {
    const log = this.logs.get(key) ?? [];
    log.push(entry);
    this.logs.set(key, log);
    return Promise.resolve();
  }

  readLog(key: string): Promise<string[]> {
    return Promise.resolve([...(this.logs.get(key) ?? [])]);
  }

  addCounts(keys: readonly string[], by: Readonly<Record<string, number>>): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const [index, key] of keys.entries()) {
      const hash = this.hashes.get(key) ?? new Map<string, number>();
      this.hashes.set(key, hash);
      for (const [field, amount] of Object.entries(by)) {
        const value = (hash.get(field) ?? 0) + amount;
        hash.set(field, value);
        if (index === 0) result[field] = value;
      }
    }
    return Promise.resolve(result);
  }

  async addCountsIf(key: string, by: Readonly<Record<string, number>>, when: { field: string; equals: number }): Promise<boolean> {
    if ((this.hashes.get(key)?.get(when.field) ?? 0) !== when.equals) return false;
    await this.addCounts([key], by);
    return true;
  }

  readCounts(key: string): Promise<Record<string, number>> {
    return Promise.resolve(Object.fromEntries(this.hashes.get(key) ?? []));
  }

  replaceCounts(key: string, values: Readonly<Record<string, number>>, options: { plusFrom?: string } = {}): Promise<void> {
    const hash = new Map(Object.entries(values));
    const plus = options.plusFrom === undefined ? undefined : this.hashes.get(options.plusFrom);
    for (const [field, amount] of plus ?? []) hash.set(field, (hash.get(field) ?? 0) + amount);
    if (hash.size === 0) this.hashes.delete(key);
    else this.hashes.set(key, hash);
    return Promise.resolve();
  }

  addScores(key: string, scores: Readonly<Record<string, number>>, options: { dropBelow: number; ttlMs: number }): Promise<void> {
    const set = this.liveSortedSet(key)?.scores ?? new Map<string, number>();
    for (const [member, score] of Object.entries(scores)) set.set(member, score);
    for (const [member, score] of set) if (score < options.dropBelow) set.delete(member);
    this.sortedSets.set(key, { scores: set, expiresAt: this.now() + options.ttlMs });
    return Promise.resolve();
  }

  readScore(key: string, member: string): Promise<number | undefined> {
    return Promise.resolve(this.liveSortedSet(key)?.scores.get(member));
  }

  private liveSortedSet(key: string): { scores: Map<string, number>; expiresAt: number } | undefined {
    const set = this.sortedSets.get(key);
    if (set === undefined || set.expiresAt > this.now()) return set;
    this.sortedSets.delete(key);
    return undefined;
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  connected(): boolean {
    return true;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
