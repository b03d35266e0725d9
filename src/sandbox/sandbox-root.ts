import { lstat, mkdir, readdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { ConversationSandbox } from './conversation-sandbox.js';
import { sandboxMarker } from './layout.js';

/**
 * The sandbox root: holds the marker file and one folder per conversation.
 * Open it once per process; conversations are handed out from it.
 */
export class SandboxRoot {
  private readonly conversations = new Map<string, ConversationSandbox>();

  private constructor(readonly root: string) {}

  /**
   * Opens (creating if needed) a sandbox root. A new root gets the marker file;
   * an existing non-empty folder without the marker is refused, so a typo in the
   * configuration never turns a home folder into a sandbox.
   */
  static async open(root: string): Promise<SandboxRoot> {
    const absolute = path.resolve(root);
    if (path.parse(absolute).root === absolute) {
      throw new SpillwayError('SANDBOX_ROOT_INVALID', `The sandbox root ${absolute} is a filesystem root; choose a dedicated folder.`, { root: absolute });
    }
    await mkdir(absolute, { recursive: true });
    const real = await realpath(absolute);
    const marker = path.join(real, sandboxMarker);
    const hasMarker = await lstat(marker).then((info) => info.isFile(), () => false);
    if (!hasMarker) {
      const entries = (await readdir(real)).filter((name) => name !== '.gitkeep');
      if (entries.length > 0) {
        throw new SpillwayError(
          'SANDBOX_ROOT_INVALID',
          `The sandbox root ${real} is not empty and has no ${sandboxMarker} marker. Point sandbox.root at an empty or new folder, or create the marker there if it really is a spillway sandbox.`,
          { root: real },
        );
      }
      await writeFile(marker, 'This folder is a spillway sandbox root. The retention sweep only runs where this file exists.\n', { flag: 'wx' }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        },
      );
    }
    return new SandboxRoot(real);
  }

  /** The sandbox of one conversation; the id comes from the request context, never from a tool argument. */
  conversation(id: string): ConversationSandbox {
    let sandbox = this.conversations.get(id);
    if (sandbox === undefined) {
      sandbox = new ConversationSandbox(this.root, id);
      this.conversations.set(id, sandbox);
    }
    return sandbox;
  }
}
