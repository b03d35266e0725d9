import { existsSync, readFileSync } from 'node:fs';
import { waitFor } from './wait-for.js';

/** Whether this system has /proc (Linux): read once, not on every poll. */
const hasProc = existsSync('/proc/self/stat');

/** What /proc says of a process: its state letter, its parent's pid and its command line. */
export interface ProcEntry {
  state: string;
  parent: number;
  commandLine: string;
}

/** The /proc entry of `pid`, or undefined when there is no such process (or no /proc). */
export function procEntry(pid: number | string): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may itself hold ") ".
    const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { state, parent: Number(parent), commandLine };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ESRCH') throw error;
    return undefined;
  }
}

/**
 * Whether the process `pid` that ran `program` (a path its command line holds) has
 * ended. `process.kill(pid, 0)` alone says no for a process that is dead but not yet
 * reaped (a zombie) and for a pid the system has since given to another process (pid_max
 * is 32768 on the CI machine, and a CI run starts many thousands): on Linux the process's
 * state and command line are read from /proc instead.
 */
export function processEnded(pid: number, program?: string): boolean {
  if (!hasProc) {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }
  const entry = procEntry(pid);
  if (entry === undefined || entry.state === 'Z' || entry.state === 'X') return true;
  return program !== undefined && !entry.commandLine.includes(program);
}

/** What /proc says of `pid`, for a failure message: "state S, node /path/fixture.js", or "no such process". */
export function describeProcess(pid: number): string {
  if (!hasProc) return 'no /proc on this system';
  const entry = procEntry(pid);
  return entry === undefined ? 'no such process' : `state ${entry.state}, ${entry.commandLine}`;
}

/** Resolves once {@link processEnded}; a wait that gives up says what /proc shows of the process. */
export function untilProcessEnded(pid: number, program: string, what: string): Promise<void> {
  return waitFor(
    () => processEnded(pid, program),
    `${what} (process ${pid}) to end`,
    undefined,
    () => describeProcess(pid),
  );
}
