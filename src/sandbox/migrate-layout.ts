import { chmod, lstat, mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { assertPrincipal, folderMode } from './layout.js';
import { findOldLayout, migratingPrefix } from './old-layout.js';

export interface MigrationStep {
  /** The conversation folder name. */
  conversation: string;
  /** Relative to the root. */
  from: string;
  to: string;
  outcome: 'moved' | 'would-move' | 'exists';
}

export interface MigrationOptions {
  /** The real path of the sandbox root. */
  root: string;
  /** The principal the old conversations belong to (default "local"). */
  principal: string;
  /** Report what would move; move nothing. */
  dryRun?: boolean;
  /** Called after each step (the CLI prints it; tests stop a run halfway here). */
  onStep?: (step: MigrationStep) => void;
}

/**
 * Moves every old-layout conversation `<root>/<conversation>` to
 * `<root>/<principal>/<conversation>`, each with one rename (atomic per
 * folder), and makes the folders 0700. Running it again moves what is left,
 * so a run stopped halfway (a crash, Ctrl-C) is finished by the next; a
 * finished sandbox has nothing to move. A conversation named like the
 * principal is first parked at `<root>/.spillway-migrating.<name>` (a folder
 * cannot be renamed into itself), then moved; a parked folder is finished by
 * any later run. A destination that already exists is left alone and
 * reported as `exists`.
 */
export async function migrateLayout(options: MigrationOptions): Promise<MigrationStep[]> {
  assertPrincipal(options.principal);
  const { root, principal } = options;
  const steps: MigrationStep[] = [];
  const step = (value: MigrationStep) => {
    steps.push(value);
    options.onStep?.(value);
  };
  const principalDir = path.join(root, principal);
  const parked = (await readdir(root)).filter((name) => name.startsWith(migratingPrefix)).sort();
  const old = await findOldLayout(root);
  if (options.dryRun) {
    for (const name of parked) step({ conversation: name.slice(migratingPrefix.length), from: name, to: `${principal}/${name.slice(migratingPrefix.length)}`, outcome: 'would-move' });
    for (const name of old) step({ conversation: name, from: name, to: `${principal}/${name}`, outcome: 'would-move' });
    return steps;
  }
  if (old.includes(principal)) {
    await rename(path.join(root, principal), path.join(root, `${migratingPrefix}${principal}`));
    parked.push(`${migratingPrefix}${principal}`);
  }
  await mkdir(principalDir, { mode: folderMode }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  if (!(await lstat(principalDir)).isDirectory()) {
    throw new SpillwayError('SANDBOX_ROOT_INVALID', `${principalDir} is not a plain folder (a symlink?); nothing was moved into it.`, { folder: principalDir });
  }
  await chmod(principalDir, folderMode);
  const moves = [
    ...parked.map((name) => ({ conversation: name.slice(migratingPrefix.length), from: name })),
    ...old.filter((name) => name !== principal).map((name) => ({ conversation: name, from: name })),
  ];
  for (const move of moves) {
    const to = path.join(principalDir, move.conversation);
    const relativeTo = `${principal}/${move.conversation}`;
    if (await exists(to)) {
      step({ ...move, to: relativeTo, outcome: 'exists' });
      continue;
    }
    await rename(path.join(root, move.from), to);
    await chmod(to, folderMode);
    step({ ...move, to: relativeTo, outcome: 'moved' });
  }
  return steps;
}

async function exists(at: string): Promise<boolean> {
  return lstat(at).then(
    () => true,
    () => false,
  );
}
