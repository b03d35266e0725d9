import { lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { writeFileAtomic, type PublishOptions } from './atomic-write.js';
import { readSidecar } from './read-sidecar.js';

/**
 * Exactly-once publishing for a job that may run more than once (its worker
 * died and another took it again). Before the finished file is hard-linked to
 * its final name, a marker in the same folder records that name and the
 * file's inode (a link keeps the inode). A later run of the same job that
 * finds the marker, and the named file with that inode, knows its file is
 * already published and keeps it instead of publishing a second copy. A run
 * killed between the marker and the link left no file of that inode under
 * the name, so the next run publishes (and rewrites the marker).
 *
 * The marker's name has the shape of a publish temporary name
 * (".<name>.<digits>.<12 hex>.tmp"), so listings skip it and the sweep
 * removes one left behind once it is older than retention.tempGraceMs.
 */

/** A job id: 32 lowercase hex digits. */
const jobIdPattern = /^[0-9a-f]{32}$/;

interface Marker {
  name: string;
  dev: number;
  ino: number;
}

export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && jobIdPattern.test(value);
}

/** The marker file of a job in its output folder. */
export function jobMarkerName(jobId: string): string {
  if (!isJobId(jobId)) throw new SpillwayError('INTERNAL', 'A job id is 32 lowercase hex digits.', { jobId });
  return `.spillway-job-${jobId.slice(0, 20)}.0.${jobId.slice(20)}.tmp`;
}

/** The final path of the job's file when an earlier run already published it, else undefined. */
export async function findPublished(folder: string, jobId: string): Promise<string | undefined> {
  const text = await readSidecar(path.join(folder, jobMarkerName(jobId)), 4096);
  if (text === undefined) return undefined;
  let marker: Partial<Marker>;
  try {
    marker = JSON.parse(text) as Partial<Marker>;
  } catch {
    return undefined;
  }
  const { name, dev, ino } = marker;
  if (typeof name !== 'string' || typeof dev !== 'number' || typeof ino !== 'number') return undefined;
  // Only a plain name in this folder: the marker is ours, but never trusted to point elsewhere.
  if (name !== path.basename(name) || name === '.' || name === '..' || name.includes('\0')) return undefined;
  const info = await lstat(path.join(folder, name)).catch(() => undefined);
  return info?.isFile() === true && info.ino === ino && info.dev === dev ? path.join(folder, name) : undefined;
}

/**
 * Publish options that record each candidate name in the job's marker just
 * before the link (chain them after the caller's own options).
 */
export async function markBeforeLink(folder: string, jobId: string, tempPath: string): Promise<Required<Pick<PublishOptions, 'beforeLink'>>> {
  const temp = await lstat(tempPath);
  const markerPath = path.join(folder, jobMarkerName(jobId));
  return {
    beforeLink: async (finalPath) => {
      const marker: Marker = { name: path.basename(finalPath), dev: temp.dev, ino: temp.ino };
      await writeFileAtomic(markerPath, JSON.stringify(marker), { overwrite: true });
      // A name that turns out to be taken needs no undo: the next candidate rewrites the marker.
      return async () => undefined;
    },
  };
}

/** Removes a job's marker once the job is finished for good (no run of it can come again). */
export async function removeJobMarker(folder: string, jobId: string): Promise<void> {
  if (!isJobId(jobId)) return;
  await unlink(path.join(folder, jobMarkerName(jobId))).catch(() => undefined);
}
