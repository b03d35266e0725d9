import { readFileSync } from 'node:fs';

/**
 * Whether the process `pid` that ran `program` (a path its command line holds) has
 * ended. `process.kill(pid, 0)` alone says no for a process that is dead but not yet
 * reaped (a zombie) and for a pid the system has since given to another process (pid_max
 * is 32768 on the CI machine, and a CI run starts many thousands): on Linux the process's
 * state and command line are read from /proc instead.
 */
export function processEnded(pid: number, program?: string): boolean {
  const proc = readProc(pid);
  if (proc === 'no /proc') {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }
  if (proc === undefined || proc.state === 'Z' || proc.state === 'X') return true;
  return program !== undefined && !proc.commandLine.includes(program);
}

/** What /proc says of `pid`, for a failure message: "state S, node /path/fixture.js", or "no such process". */
export function describeProcess(pid: number): string {
  const proc = readProc(pid);
  if (proc === 'no /proc') return 'no /proc on this system';
  return proc === undefined ? 'no such process' : `state ${proc.state}, ${proc.commandLine}`;
}

function readProc(pid: number): { state: string; commandLine: string } | undefined | 'no /proc' {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself hold ") ".
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { state, commandLine };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    try {
      readFileSync('/proc/self/stat');
      return undefined;
    } catch {
      return 'no /proc';
    }
  }
}
