import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { sandboxMarker } from '../sandbox/layout.js';
import { assertCurrentLayout } from '../sandbox/old-layout.js';

/**
 * Checks a folder before anything is deleted under it and returns its real
 * path. Unlike `SandboxRoot.open`, this never creates a root or its marker: a
 * sweep pointed at the wrong folder (a typo in --root, a home folder) must
 * refuse to run rather than adopt it. A root of the layout before principals
 * is refused too (SANDBOX_LAYOUT_OLD): migrate it first.
 */
export async function checkSweepRoot(root: string): Promise<string> {
  const absolute = path.resolve(root);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    throw new SpillwayError(
      'SANDBOX_ROOT_INVALID',
      `The sandbox root ${absolute} cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)}); check sandbox.root or --root.`,
      {
        root: absolute,
      },
    );
  }
  if (path.parse(real).root === real) {
    throw new SpillwayError(
      'SANDBOX_ROOT_INVALID',
      `Refusing to sweep ${real}: it is a filesystem root. Point --root (or sandbox.root) at the spillway sandbox folder.`,
      {
        root: real,
      },
    );
  }
  const info = await lstat(real);
  if (!info.isDirectory()) {
    throw new SpillwayError('SANDBOX_ROOT_INVALID', `The sandbox root ${real} is not a folder.`, { root: real });
  }
  const marker = await lstat(path.join(real, sandboxMarker)).catch(() => undefined);
  if (marker === undefined || !marker.isFile()) {
    throw new SpillwayError(
      'SANDBOX_ROOT_INVALID',
      `Refusing to sweep ${real}: it has no ${sandboxMarker} marker file, so it may not be a spillway sandbox. Check --root (or sandbox.root); spillway creates the marker when it first opens a new sandbox.`,
      { root: real, marker: sandboxMarker },
    );
  }
  // An old-layout root would be read as principals holding conversations named results/, outputs/, ...
  await assertCurrentLayout(real);
  return real;
}
