import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { conversationFolders, isFolderName } from './layout.js';

/** Prefix of a folder the migration parked at the root (an old conversation named like the principal); finished by the next run. */
export const migratingPrefix = '.spillway-migrating.';

/**
 * The folders directly under a sandbox root that are conversations of the
 * layout before principals (`<root>/<conversation>/results/…`), sorted. A
 * folder is one when one of its results/, errors/, args/, scripts/ or outputs/
 * is a folder that is not itself a conversation (a conversation has outputs/):
 * a principal folder holds conversations, whatever they are called. Symlinks
 * and dot files are never counted.
 */
export async function findOldLayout(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(root)) {
    if (!isFolderName(name)) continue;
    if (await isOldConversation(path.join(root, name))) found.push(name);
  }
  return found.sort();
}

async function isOldConversation(folder: string): Promise<boolean> {
  if (!(await isFolder(folder))) return false;
  for (const sub of conversationFolders) {
    const inner = path.join(folder, sub);
    if ((await isFolder(inner)) && !(await isFolder(path.join(inner, 'outputs')))) return true;
  }
  return false;
}

async function isFolder(at: string): Promise<boolean> {
  return lstat(at).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/**
 * Refuses a root that still holds old-layout conversations (SANDBOX_LAYOUT_OLD,
 * with the command that migrates it): serving or sweeping it would put new
 * files beside files nobody could reach any more.
 */
export async function assertCurrentLayout(root: string): Promise<void> {
  const old = await findOldLayout(root);
  if (old.length === 0) return;
  const command = `spillway migrate-sandbox --root ${root}`;
  throw new SpillwayError(
    'SANDBOX_LAYOUT_OLD',
    `The sandbox root ${root} holds ${old.length} conversation folder(s) of the layout before principals (e.g. ${old[0]}/ directly under the root). Stop spillway and run once: ${command}`,
    { root, folders: old.slice(0, 20), count: old.length, command },
  );
}
