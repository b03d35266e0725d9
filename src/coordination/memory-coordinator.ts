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

  constructor(private readonly now: () => number = Date.now) {}

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
