import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sandboxMarker } from '../../src/sandbox/layout.js';

export const day = 86_400_000;

/** The principal the seeded conversations belong to. */
export const principal = 'local';

/** `<root>/<principal>/<relative>`: a path in a seeded conversation ("a/results/x" is conversation a). */
export function at(root: string, ...relative: string[]): string {
  return path.join(root, principal, ...relative);
}

/** A path as the sweep reports it (relative to the root: "<principal>/<relative>"). */
export function reported(relative: string): string {
  return `${principal}/${relative}`;
}

/** A sandbox root with its marker in a fresh temporary folder. */
export async function tempSandbox(): Promise<{ root: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-retention-'));
  const root = path.join(dir, 'sandbox');
  await mkdir(root);
  await writeFile(path.join(root, sandboxMarker), 'marker\n');
  return { root, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes `<root>/<principal>/<relative>` and sets its modification time to `ageDays` before `nowMs`. */
export async function seedFile(root: string, relative: string, ageDays: number, nowMs: number, content = `content of ${relative}\n`): Promise<string> {
  const absolute = at(root, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
  const when = new Date(nowMs - ageDays * day);
  await utimes(absolute, when, when);
  return absolute;
}

/** Sets a folder's modification time (folders get "now" whenever a file is added). */
export async function ageFolder(absolute: string, ageDays: number, nowMs: number): Promise<void> {
  const when = new Date(nowMs - ageDays * day);
  await utimes(absolute, when, when);
}
