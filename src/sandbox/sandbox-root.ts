import { lstat, mkdir, readdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { ConversationSandbox, type ExpiryLookup } from './conversation-sandbox.js';
import { defaultPrincipal, folderMode, sandboxMarker } from './layout.js';
import { assertCurrentLayout } from './old-layout.js';

/** Conversations kept open in memory; an evicted one is simply built again (its folder check runs once more). */
const maxCached = 10_000;

/**
 * The sandbox root: holds the marker file and one folder per conversation.
 * Open it once per process; conversations are handed out from it.
 */
export class SandboxRoot {
  private readonly conversations = new Map<string, ConversationSandbox>();
  private expiryLookup: ExpiryLookup | undefined;

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
    await mkdir(absolute, { recursive: true, mode: folderMode });
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
    await assertCurrentLayout(real);
    return new SandboxRoot(real);
  }

  /**
   * Where a missing path's expiry is looked up before the conversation's
   * `.expired.jsonl` (a fleet's coordination store); every conversation handed
   * out from now on asks it.
   */
  setExpiryLookup(lookup: ExpiryLookup | undefined): void {
    this.expiryLookup = lookup;
  }

  /**
   * The sandbox of one conversation of one principal, `<root>/<principal>/<id>`.
   * Both come from the request context (auth, MCP request, library call), never
   * from a tool argument; both are checked as folder names (CONVERSATION_INVALID,
   * PRINCIPAL_INVALID). Two principals using the same conversation name get two folders.
   */
  conversation(id: string, principal: string = defaultPrincipal): ConversationSandbox {
    const key = `${principal}/${id}`;
    let sandbox = this.conversations.get(key);
    if (sandbox === undefined) {
      sandbox = new ConversationSandbox(this.root, id, principal);
      if (this.conversations.size >= maxCached) this.conversations.delete(this.conversations.keys().next().value as string);
      this.conversations.set(key, sandbox);
    }
    sandbox.expiryLookup = this.expiryLookup;
    return sandbox;
  }
}
