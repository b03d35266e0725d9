import { randomUUID } from 'node:crypto';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';

/** Who a task belongs to: the MCP session that created it and the principal it ran for. */
export interface TaskOwner {
  session: string;
  principal: string;
}

export type TaskLimits = Config['tasks'];

/** Told every time a task's status changes (for notifications/tasks/status). */
export type TaskListener = (task: Task) => void;

interface Entry {
  task: Task;
  owner: TaskOwner;
  controller: AbortController;
  expiresAt: number;
  result?: CallToolResult;
  listener: TaskListener;
  /** Wakes the tasks/result requests waiting for this task (it finished or was forgotten). */
  wake: (() => void)[];
  timer: NodeJS.Timeout;
}

/** Timers never hold the process open, and never exceed what setTimeout accepts. */
const maxTimerMs = 2_147_483_647;

/**
 * The tasks of the MCP sessions of one front (an HTTP server, or stdio): each
 * a call running on with its own AbortSignal, then its result, kept until it is
 * fetched or its ttl (from creation) ends. Held per session and per principal
 * under caps; a task is only found by the session and principal that created
 * it (anyone else gets TASK_NOT_FOUND, as for an id that never existed).
 * Time comes from `clock`, so tests move it by hand.
 */
export class TaskBoard {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly limits: () => TaskLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Creates a working task for `owner`; refused with TASK_LIMIT over a cap. The signal aborts on cancel, ttl end or session close. */
  create(owner: TaskOwner, requestedTtl: number | null | undefined, listener: TaskListener): { task: Task; signal: AbortSignal } {
    this.sweep();
    const limits = this.limits();
    this.checkCap('session', [...this.entries.values()].filter((entry) => entry.owner.session === owner.session).length, limits.maxPerSession);
    this.checkCap('principal', [...this.entries.values()].filter((entry) => entry.owner.principal === owner.principal).length, limits.maxPerPrincipal);
    const ttl =
      typeof requestedTtl === 'number' && requestedTtl > 0
        ? Math.min(Math.floor(requestedTtl), limits.maxTtlMs)
        : requestedTtl === null
          ? limits.maxTtlMs
          : limits.ttlMs;
    const now = this.clock();
    const stamp = new Date(now).toISOString();
    const task: Task = { taskId: randomUUID(), status: 'working', ttl, createdAt: stamp, lastUpdatedAt: stamp, pollInterval: limits.pollIntervalMs };
    const entry: Entry = { task, owner, controller: new AbortController(), expiresAt: now + ttl, listener, wake: [], timer: this.expiryTimer(ttl) };
    this.entries.set(task.taskId, entry);
    return { task: { ...task }, signal: entry.controller.signal };
  }

  /** The call's result: the task completes (failed when the result is an error). Nothing happens when it was cancelled or forgotten meanwhile. */
  finish(taskId: string, result: CallToolResult): void {
    const entry = this.entries.get(taskId);
    if (entry === undefined || entry.task.status !== 'working') return;
    entry.result = result;
    this.update(entry, result.isError === true ? 'failed' : 'completed', result.isError === true ? firstText(result) : undefined);
  }

  get(owner: TaskOwner, taskId: string): Task {
    return { ...this.find(owner, taskId).task };
  }

  /** The owner's tasks, oldest first. */
  list(owner: TaskOwner): Task[] {
    this.sweep();
    return [...this.entries.values()].filter((entry) => sameOwner(entry.owner, owner)).map((entry) => ({ ...entry.task }));
  }

  /** Cancels a working task: its call's signal aborts; TASK_FINISHED when it has already ended. */
  cancel(owner: TaskOwner, taskId: string): Task {
    const entry = this.find(owner, taskId);
    if (entry.task.status !== 'working' && entry.task.status !== 'input_required') {
      throw new SpillwayError(
        'TASK_FINISHED',
        `Task ${taskId} has already ${entry.task.status === 'cancelled' ? 'been cancelled' : entry.task.status}; nothing to cancel.`,
        {
          taskId,
          status: entry.task.status,
        },
      );
    }
    this.stop(entry, 'Cancelled by the client (tasks/cancel).');
    return { ...entry.task };
  }

  /**
   * Waits until the task has finished (or `signal` aborts, or the task is
   * forgotten at its ttl), then hands over its result once: the task is
   * forgotten. A cancelled task has none (TASK_CANCELLED).
   */
  async result(owner: TaskOwner, taskId: string, signal: AbortSignal): Promise<CallToolResult> {
    let entry = this.find(owner, taskId);
    while (entry.task.status === 'working' || entry.task.status === 'input_required') {
      await this.nextChange(entry, signal);
      entry = this.find(owner, taskId);
    }
    this.forget(entry);
    if (entry.result === undefined) {
      throw new SpillwayError('TASK_CANCELLED', `Task ${taskId} was cancelled before it finished: ${entry.task.statusMessage ?? 'no reason given'}`, {
        taskId,
      });
    }
    return entry.result;
  }

  /** A session ended: its working tasks are cancelled and all its tasks forgotten (nobody can fetch them any more). */
  closeSession(session: string): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.owner.session !== session) continue;
      if (entry.task.status === 'working' || entry.task.status === 'input_required') entry.controller.abort(cancelled('The MCP session closed.'));
      this.forget(entry);
    }
  }

  /** How many tasks are held (all sessions). */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  /** Forgets every task whose ttl has ended, cancelling those still working. */
  sweep(): void {
    const now = this.clock();
    for (const entry of [...this.entries.values()]) {
      if (entry.expiresAt > now) continue;
      if (entry.task.status === 'working' || entry.task.status === 'input_required') this.stop(entry, 'Its ttl ended before it finished.');
      this.forget(entry);
    }
  }

  private find(owner: TaskOwner, taskId: string): Entry {
    this.sweep();
    const entry = this.entries.get(taskId);
    if (entry === undefined || !sameOwner(entry.owner, owner)) {
      throw new SpillwayError('TASK_NOT_FOUND', `No task ${taskId} in this session: it was never created here, was already fetched, or its ttl ended.`, {
        taskId,
      });
    }
    return entry;
  }

  private checkCap(scope: 'session' | 'principal', open: number, limit: number): void {
    if (open < limit) return;
    const key = scope === 'session' ? 'tasks.maxPerSession' : 'tasks.maxPerPrincipal';
    throw new SpillwayError('TASK_LIMIT', `This ${scope} already holds ${open} tasks (${key} is ${limit}); fetch (tasks/result) or cancel one first.`, {
      scope,
      open,
      limit,
    });
  }

  private stop(entry: Entry, reason: string): void {
    entry.controller.abort(cancelled(reason));
    this.update(entry, 'cancelled', reason);
  }

  private update(entry: Entry, status: Task['status'], statusMessage: string | undefined): void {
    entry.task = { ...entry.task, status, lastUpdatedAt: new Date(this.clock()).toISOString(), ...(statusMessage === undefined ? {} : { statusMessage }) };
    try {
      entry.listener({ ...entry.task });
    } catch {
      // A listener that fails (a closed stream) must not stop the task's bookkeeping.
    }
    this.wakeAll(entry);
  }

  private forget(entry: Entry): void {
    clearTimeout(entry.timer);
    this.entries.delete(entry.task.taskId);
    this.wakeAll(entry);
  }

  private wakeAll(entry: Entry): void {
    for (const wake of entry.wake.splice(0)) wake();
  }

  private nextChange(entry: Entry, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled.'));
        return;
      }
      const onAbort = () => {
        entry.wake = entry.wake.filter((wake) => wake !== done);
        reject(signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled.'));
      };
      const done = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      entry.wake.push(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The real-time reminder to sweep at a task's ttl (the sweep itself reads the clock, so an early or late timer changes nothing). */
  private expiryTimer(ttl: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.sweep(), Math.min(ttl + 1, maxTimerMs));
    timer.unref();
    return timer;
  }
}

function sameOwner(a: TaskOwner, b: TaskOwner): boolean {
  return a.session === b.session && a.principal === b.principal;
}

function cancelled(reason: string): SpillwayError {
  return new SpillwayError('TASK_CANCELLED', `The task was cancelled: ${reason}`);
}

/** The first line of a failed result's text, as the task's statusMessage. */
function firstText(result: CallToolResult): string | undefined {
  const text = result.content.find((part) => part.type === 'text');
  return text?.type === 'text' ? text.text.split('\n', 1)[0]?.slice(0, 500) : undefined;
}
