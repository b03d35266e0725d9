import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ConversationSandbox, tempNamePrefix } from '../../sandbox/index.js';
import type { OutputTarget } from './worker-task.js';

/**
 * Cleans up after output tasks that were ended mid-file (a crash, a timeout, a
 * cancellation): their temporary file could not be removed by the task
 * itself. Only this process's temporary names for that file are removed, and
 * only while no other task of this process writes a file of the same name in
 * the same conversation.
 */
export class OutputTemps {
  private readonly writing = new Map<string, number>();

  /** Marks a task as writing `target`; call the returned function when it ends, with whether it failed. */
  track(target: OutputTarget | undefined): (failed: boolean) => Promise<void> {
    if (target?.kind !== 'sandbox') return async () => undefined;
    const key = `${target.principal}/${target.conversationId}/${target.filename}`;
    this.writing.set(key, (this.writing.get(key) ?? 0) + 1);
    return async (failed) => {
      const alone = this.writing.get(key) === 1;
      const left = (this.writing.get(key) ?? 1) - 1;
      if (left === 0) this.writing.delete(key);
      else this.writing.set(key, left);
      if (!failed || !alone) return;
      let folder: string;
      try {
        folder = new ConversationSandbox(target.root, target.conversationId, target.principal).folderPath('outputs');
      } catch {
        return;
      }
      await removeTemporaryFiles(folder, target.filename);
    };
  }
}

/** Removes this process's temporary files for `filename` (".name.PID.RANDOM.tmp", see createPendingFile). */
async function removeTemporaryFiles(folder: string, filename: string): Promise<void> {
  const prefix = tempNamePrefix(filename);
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp')).map((name) => unlink(path.join(folder, name)).catch(() => undefined)),
  );
}
