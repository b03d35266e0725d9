import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** Something with node:test's `after` (a TestContext). */
export interface AfterHook {
  after(fn: () => unknown): void;
}

/** Per test: what must stop (children, clients owning a child) before its temporary folders go. */
const stoppers = new WeakMap<object, Set<() => Promise<void>>>();

/**
 * Spawns a child process that belongs to the test `t`: when the test ends it is stopped
 * (SIGTERM, then SIGKILL after `graceMs`) and awaited, before any temporary folder made
 * with tempDir(t) is removed, so a child still writing cannot make the removal fail.
 */
export function spawnChild(t: AfterHook, command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, options);
  adoptChild(t, child);
  return child;
}

/** Ties an already spawned child to the test `t` (see spawnChild). */
export function adoptChild(t: AfterHook, child: ChildProcess): void {
  stopBeforeRemoving(t, () => stopChild(child));
}

/**
 * Runs `stop` when the test ends, before tempDir(t) removes its folders: for a client that
 * owns a child process (an MCP stdio client transport awaits its server's exit on close).
 * Each stopper runs once.
 */
export function stopBeforeRemoving(t: AfterHook, stop: () => Promise<void>): void {
  let set = stoppers.get(t);
  if (set === undefined) {
    set = new Set();
    stoppers.set(t, set);
  }
  let once: Promise<void> | undefined;
  const run = () => (once ??= stop().catch(() => undefined));
  set.add(run);
  t.after(run);
}

/** Runs every stopper tied to `t` and waits for all of them. */
export async function stopChildren(t: object): Promise<void> {
  await Promise.all([...(stoppers.get(t) ?? [])].map((stop) => stop()));
}

/** Resolves once the child has exited (at once if it already has). */
export function childExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Asks the child to stop, and kills it if it has not exited within `graceMs`. The grace
 * period bounds a hang; nothing is asserted on how long stopping takes.
 */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  const exited = childExit(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, graceMs, 'late')));
  try {
    if ((await Promise.race([exited.then(() => 'exited' as const), late])) === 'late') {
      child.kill('SIGKILL');
      await exited;
    }
  } finally {
    clearTimeout(timer);
  }
}
