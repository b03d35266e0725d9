import path from 'node:path';
import { packageRoot } from '../../src/config/package-root.js';
import { spawnChild, type AfterHook } from './child-process.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd?: string;
  /** The child's whole environment besides PATH (no SPILLWAY_CONFIG leaks in from the test's). */
  env?: NodeJS.ProcessEnv;
}

/** Runs the real CLI (`node bin/spillway.js …`, as built) to its end; resolves with its exit code and both outputs. */
export async function runCli(t: AfterHook, args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  const child = spawnChild(t, process.execPath, [path.join(packageRoot, 'bin', 'spillway.js'), ...args], {
    cwd: options.cwd ?? packageRoot,
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  return { code, stdout, stderr };
}

/** Lines that are pino JSON log lines (`{"level":30,…}`). */
export function logLines(text: string): string[] {
  return text.split('\n').filter((line) => /^\{"level":\d+,/.test(line));
}
