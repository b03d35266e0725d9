import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopChildren, type AfterHook } from './child-process.js';

/**
 * A fresh temporary folder removed when the test ends, after every child process the test
 * started with spawnChild has exited (a child still writing into it would make the removal
 * fail with ENOTEMPTY).
 */
export async function tempDir(t: AfterHook, prefix = 'spillway-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  t.after(() => removeTempDir(t, dir));
  return dir;
}

/** Stops the test's children, then removes `dir` (retrying while a late writer lets go). */
export async function removeTempDir(t: AfterHook, dir: string): Promise<void> {
  await stopChildren(t);
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** The error code a promise rejects with (fails the test when it resolves). */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String((error as { code?: unknown }).code);
  }
  throw new Error('expected a rejection');
}
