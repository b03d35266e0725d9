import { fstatSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { expiringFolders, PinnedFolder } from '../sandbox/index.js';

/**
 * The folders of one conversation that the sweep (or the quota) removes
 * from, each opened once and checked ({@link PinnedFolder}): removals go
 * through the opened folder, so a folder swapped for a symlink after it was
 * listed cannot point a deletion outside the conversation. A folder is handed
 * out only when its first segment is results/, errors/, args/ or scripts/
 * *and* the opened folder is not the conversation's outputs/ (compared by
 * device and inode, so a renamed outputs/ is still recognised).
 */
export class SweepFolders {
  private readonly open = new Map<string, PinnedFolder | undefined>();
  private readonly outputs: { dev: number; ino: number } | undefined;

  constructor(readonly conversationDir: string) {
    const info = lstatSync(path.join(conversationDir, 'outputs'), { throwIfNoEntry: false });
    this.outputs = info?.isDirectory() ? { dev: info.dev, ino: info.ino } : undefined;
  }

  /** The opened folder at `relative` ("results/sub"), or undefined when it is not (any more) a plain folder the sweep may touch. */
  folder(relative: string): PinnedFolder | undefined {
    if (this.open.has(relative)) return this.open.get(relative);
    const pinned = this.pin(relative);
    this.open.set(relative, pinned);
    return pinned;
  }

  /** The conversation folder itself (for its .expired.jsonl and its fixed folders). */
  conversation(): PinnedFolder | undefined {
    return this.folder('');
  }

  closeAll(): void {
    for (const folder of this.open.values()) folder?.closeSync();
    this.open.clear();
  }

  private pin(relative: string): PinnedFolder | undefined {
    const segments = relative === '' ? [] : relative.split('/');
    if (segments.length > 0 && !(expiringFolders as readonly string[]).includes(segments[0] as string)) return undefined;
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return undefined;
    let folder: PinnedFolder;
    try {
      folder = PinnedFolder.openSync(segments.length === 0 ? this.conversationDir : path.join(this.conversationDir, ...segments));
    } catch {
      return undefined;
    }
    if (segments.length > 0 && this.outputs !== undefined) {
      const opened = fstatSync(folder.fd);
      if (opened.dev === this.outputs.dev && opened.ino === this.outputs.ino) {
        folder.closeSync();
        return undefined;
      }
    }
    return folder;
  }
}
