import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { writeFileAtomic, type PublishOptions } from './atomic-write.js';
import { toDiskError } from './disk-errors.js';
import { checkRelativePath } from './check-path.js';
import { assertConversationId, assertPrincipal, conversationFolders, folderMode, isConversationFolder, type ConversationFolder } from './layout.js';
import { isRedirectRefusal, PinnedFolder } from './pinned-folder.js';
import { readBounded } from './read-bounded.js';
import { readSidecar } from './read-sidecar.js';
import { repairPublishLink } from './publish-leftovers.js';

const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Name of the log the retention sweep appends to, so a swept path gets "expired", not "not found". */
export const expiredLogName = '.expired.jsonl';

/** The sweep compacts the log past 512 KiB; a larger one is not ours to parse on every miss. */
const maxExpiredLogBytes = 4 * 1024 * 1024;

/**
 * Answers when a removed file expired, from somewhere other than the
 * conversation's `.expired.jsonl` (a fleet keeps the entries in its
 * coordination store). `conversationKey` is "<principal>/<conversation>";
 * `relative` the path as the model gave it. Undefined when not recorded there.
 */
export type ExpiryLookup = (conversationKey: string, relative: string) => Promise<string | undefined>;

export interface ResolvedPath {
  /** The path as the model should see it: relative to the conversation folder, "/"-separated. */
  relative: string;
  /** The real absolute path. */
  absolute: string;
}

export interface OpenedFile extends ResolvedPath {
  handle: FileHandle;
  stats: Stats;
}

export interface PathRules {
  /** Only these top-level folders are allowed (e.g. write_file: args and scripts). */
  folders?: readonly ConversationFolder[];
}

/**
 * One conversation's folder. Every method takes paths exactly as the model gave
 * them and either returns a location inside the folder or throws a coded error.
 */
export class ConversationSandbox {
  readonly id: string;
  /** Who the conversation belongs to: its folder is `<root>/<principal>/<id>`. */
  readonly principal: string;
  /** The sandbox root's real path. */
  readonly root: string;
  /** Real path of the conversation folder (the sandbox root is resolved before this is built). */
  readonly dir: string;
  /** The conversation folder relative to the root, "/"-separated ("<principal>/<id>"): unique across principals. */
  readonly key: string;
  /** Asked before the file log when a path is missing (SandboxRoot.setExpiryLookup). */
  expiryLookup: ExpiryLookup | undefined;
  private ready: Promise<void> | undefined;

  /** `principal` is required: a sandbox built from a task's fields must never fall back to another principal's folder. */
  constructor(realRoot: string, id: string, principal: string) {
    assertPrincipal(principal);
    assertConversationId(id);
    this.id = id;
    this.principal = principal;
    this.root = realRoot;
    this.dir = path.join(realRoot, principal, id);
    this.key = `${principal}/${id}`;
  }

  /**
   * Creates the principal folder, the conversation folder and its sub-folders
   * (0700; idempotent; done once per process unless `recheck`, e.g. after the
   * retention sweep removed an empty folder). Each level is made inside the
   * opened level above, so a symlink planted as the principal or conversation
   * folder is refused, never created through.
   */
  ensure(options: { recheck?: boolean } = {}): Promise<void> {
    if (options.recheck) this.ready = undefined;
    this.ready ??= this.create();
    this.ready.catch(() => {
      this.ready = undefined;
    });
    return this.ready;
  }

  private async create(): Promise<void> {
    const principalDir = path.dirname(this.dir);
    const notPlain = (folder: string) => (error: unknown) => {
      throw isRedirectRefusal(error)
        ? new SpillwayError('SANDBOX_ROOT_INVALID', `The folder ${folder} is not a plain folder (a symlink?); refused.`, { folder })
        : error;
    };
    const root = await PinnedFolder.open(this.root).catch(notPlain(this.root));
    try {
      await makeFolder(root.entry(this.principal));
    } finally {
      await root.close();
    }
    const principal = await PinnedFolder.open(principalDir).catch(notPlain(principalDir));
    try {
      await makeFolder(principal.entry(this.id));
    } finally {
      await principal.close();
    }
    // The sub-folders are made inside the opened conversation folder, never through a symlink in its place.
    const folder = await PinnedFolder.open(this.dir).catch(notPlain(this.dir));
    try {
      await Promise.all(conversationFolders.map((name) => makeFolder(folder.entry(name))));
    } finally {
      await folder.close();
    }
  }

  folderPath(folder: ConversationFolder): string {
    return path.join(this.dir, folder);
  }

  /** Absolute path to "/"-relative path, for paths produced by the host itself. */
  relativeOf(absolute: string): string {
    return path.relative(this.dir, absolute).split(path.sep).join('/');
  }

  /** Lexical checks plus the folder rule; no filesystem access. */
  checkPath(input: unknown, rules: PathRules = {}): string[] {
    const segments = checkRelativePath(input);
    if (rules.folders !== undefined) {
      const top = segments[0];
      if (top === undefined || !rules.folders.includes(top as ConversationFolder) || segments.length < 2) {
        throw new SpillwayError(
          'PATH_FOLDER_NOT_ALLOWED',
          `The path ${JSON.stringify(input)} is not allowed here: it must name a file under ${rules.folders.map((f) => `${f}/`).join(' or ')}.`,
          { path: input, allowed: rules.folders },
        );
      }
    }
    return segments;
  }

  /** Resolves an existing file or folder, following symlinks only while they stay inside the conversation. */
  async resolveExisting(input: unknown, rules: PathRules = {}): Promise<ResolvedPath> {
    const segments = this.checkPath(input, rules);
    await this.ensure();
    const candidate = path.join(this.dir, ...segments);
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (error) {
      throw await this.missing(String(input), segments, error);
    }
    this.assertInside(real, String(input));
    return { relative: segments.join('/'), absolute: real };
  }

  /**
   * Opens a regular file for reading and checks the file actually opened: no
   * symlink as the last component, not a FIFO/socket/device, not hard-linked,
   * and (on Linux, through /proc) really inside the conversation folder.
   */
  async openRead(input: unknown, rules: PathRules = {}): Promise<OpenedFile> {
    const resolved = await this.resolveExisting(input, rules);
    let handle: FileHandle;
    try {
      handle = await open(resolved.absolute, readFlags);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw this.escapes(String(input));
      if (code === 'EISDIR') throw notAFile(String(input), 'a folder');
      // A socket cannot be opened (ENXIO); a device without a driver gives ENODEV.
      if (code === 'ENXIO' || code === 'ENODEV') throw notAFile(String(input), 'not a regular file');
      throw await this.missing(String(input), resolved.relative.split('/'), error);
    }
    try {
      let stats = await handle.stat();
      if (!stats.isFile()) throw notAFile(String(input), stats.isDirectory() ? 'a folder' : 'not a regular file');
      if (stats.nlink === 2 && (await this.repairLink(resolved.absolute, stats))) stats = await handle.stat();
      if (stats.nlink > 1) {
        throw new SpillwayError('PATH_HARDLINK', `The file ${JSON.stringify(input)} has ${stats.nlink} hard links and is refused.`, { path: input });
      }
      await this.assertOpenedInside(handle, resolved.absolute, stats, String(input));
      return { ...resolved, handle, stats };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** Removes the temporary second link an interrupted publish left on this file (see repairPublishLink). */
  private async repairLink(absolute: string, stats: Stats): Promise<boolean> {
    const folder = await PinnedFolder.open(path.dirname(absolute)).catch(() => undefined);
    if (folder === undefined) return false;
    try {
      return await repairPublishLink(folder, stats);
    } finally {
      await folder.close();
    }
  }

  /** Reads a whole file (bounded by `maxBytes`) through {@link openRead}. */
  async readFile(input: unknown, options: PathRules & { maxBytes?: number } = {}): Promise<{ relative: string; data: Buffer }> {
    const file = await this.openRead(input, options);
    try {
      if (options.maxBytes !== undefined && file.stats.size > options.maxBytes) {
        throw new SpillwayError(
          'RESULT_TOO_LARGE',
          `The file ${file.relative} is ${file.stats.size} bytes; at most ${options.maxBytes} are allowed here.`,
          { path: file.relative, bytes: file.stats.size, maxBytes: options.maxBytes },
        );
      }
      const data =
        options.maxBytes === undefined ? await file.handle.readFile() : await readBounded(file.handle, { maxBytes: options.maxBytes, name: file.relative });
      return { relative: file.relative, data };
    } finally {
      await file.handle.close();
    }
  }

  /**
   * Resolves a path to write: the top folder must be allowed, the parent folders
   * are created inside the conversation, and none of them may be a symlink out.
   */
  async resolveForWrite(input: unknown, rules: PathRules = {}): Promise<ResolvedPath> {
    const segments = this.checkPath(input, rules);
    if (segments.length === 0) throw notAFile(String(input), 'the conversation folder');
    await this.ensure();
    const parentSegments = segments.slice(0, -1);
    const name = segments[segments.length - 1] as string;
    // Each folder on the way is opened and checked (PinnedFolder), and the next one is looked up,
    // made or followed inside the opened one: a folder swapped for a symlink meanwhile is refused.
    let folder = await this.pin(this.dir, String(input));
    try {
      for (const segment of parentSegments) {
        const entry = folder.entry(segment);
        const info = await lstat(entry).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined;
          throw this.fsFailure(String(input), error);
        });
        let next = folder.realPath(segment);
        if (info === undefined) {
          await mkdir(entry, folderMode).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'EEXIST') throw this.fsFailure(String(input), error);
          });
        } else if (info.isSymbolicLink()) {
          // A dangling or looping link, or one leading out, is refused rather than created through.
          next = await realpath(entry).catch((error: NodeJS.ErrnoException) => {
            throw error.code === 'ENOENT' ? notAFile(String(input), `"${segment}" is a dangling symlink`) : this.fsFailure(String(input), error);
          });
          this.assertInside(next, String(input));
          const target = await stat(next).catch((error: NodeJS.ErrnoException) => {
            throw this.fsFailure(String(input), error);
          });
          if (!target.isDirectory()) throw notAFile(String(input), `"${segment}" is a file, not a folder`);
        } else if (!info.isDirectory()) {
          throw notAFile(String(input), `"${segment}" is a file, not a folder`);
        }
        const inner = await this.pin(next, String(input));
        await folder.close();
        folder = inner;
      }
      const existing = await lstat(folder.entry(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw this.fsFailure(String(input), error);
      });
      if (existing !== undefined && !existing.isFile()) {
        throw notAFile(String(input), existing.isSymbolicLink() ? 'a symlink' : 'not a regular file');
      }
      return { relative: segments.join('/'), absolute: folder.realPath(name) };
    } finally {
      await folder.close();
    }
  }

  /** Opens and checks a folder inside the conversation; a redirect becomes PATH_ESCAPES. */
  private async pin(real: string, input: string): Promise<PinnedFolder> {
    this.assertInside(real, input);
    try {
      return await PinnedFolder.open(real);
    } catch (error) {
      if (isRedirectRefusal(error)) throw this.escapes(input);
      throw this.fsFailure(input, error as NodeJS.ErrnoException);
    }
  }

  /** Writes a whole file atomically at a model-supplied path. */
  async writeFile(
    input: unknown,
    data: string | Uint8Array,
    options: PathRules & PublishOptions = {},
  ): Promise<ResolvedPath> {
    const target = await this.resolveForWrite(input, options);
    const finalPath = await writeFileAtomic(target.absolute, data, options).catch((error: unknown) => {
      if (isRedirectRefusal(error)) throw this.escapes(String(input));
      // A disk fault is named by the path the model gave, not the file name atomic-write knew.
      throw toDiskError(error, { path: target.relative }) ?? (SpillwayError.is(error) ? error : this.fsFailure(String(input), error as NodeJS.ErrnoException));
    });
    return { relative: this.relativeOf(finalPath), absolute: finalPath };
  }

  /** A filesystem failure as a coded error that names the path (never a bare errno). */
  private fsFailure(input: string, error: NodeJS.ErrnoException): SpillwayError {
    switch (error.code) {
      case 'ELOOP':
        return this.escapes(input);
      case 'ENAMETOOLONG':
        return new SpillwayError('PATH_TOO_LONG', `A name in the path ${JSON.stringify(input)} is too long for the filesystem; use shorter names.`, { path: input });
      case 'ENOTDIR':
      case 'EISDIR':
        return notAFile(input, 'not usable as a file or folder here');
      case 'ENOENT':
        return new SpillwayError('PATH_NOT_FOUND', `No folder on the way to ${JSON.stringify(input)}.`, { path: input });
      default:
        return (
          toDiskError(error, { path: input }) ??
          new SpillwayError('INTERNAL', `Cannot write ${JSON.stringify(input)}: ${error.code ?? 'an unexpected failure'}.`, { path: input, errno: error.code })
        );
    }
  }

  private assertInside(real: string, input: string): void {
    if (real !== this.dir && !real.startsWith(this.dir + path.sep)) throw this.escapes(input);
  }

  private escapes(input: string): SpillwayError {
    return new SpillwayError(
      'PATH_ESCAPES',
      `The path ${JSON.stringify(input)} leads outside the conversation folder (through a symlink) and is refused.`,
      { path: input },
    );
  }

  private async assertOpenedInside(handle: FileHandle, absolute: string, stats: Stats, input: string): Promise<void> {
    const viaProc = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (viaProc !== undefined) {
      this.assertInside(viaProc, input);
      return;
    }
    // No /proc: the file opened must still be the file that resolved inside.
    const now = await stat(absolute);
    if (now.ino !== stats.ino || now.dev !== stats.dev) throw this.escapes(input);
  }

  /** A not-found error, or PATH_EXPIRED when the retention sweep removed the file. */
  private async missing(input: string, segments: string[], cause: unknown): Promise<SpillwayError> {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return this.escapes(input);
    const fault = toDiskError(cause, { path: input, operation: 'read' });
    if (fault !== undefined) return fault;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return new SpillwayError('PATH_NOT_FOUND', `Cannot open ${JSON.stringify(input)}: ${code ?? String(cause)}`, { path: input });
    const relative = segments.join('/');
    const expiredAt = await this.expiredAt(relative);
    if (expiredAt !== undefined) {
      return new SpillwayError(
        'PATH_EXPIRED',
        `The file ${relative} expired on ${expiredAt} and was removed by retention; run the query (or tool) again to get a fresh copy.`,
        { path: relative, expiredAt },
      );
    }
    const top = segments[0];
    const hint =
      top !== undefined && !isConversationFolder(top)
        ? ` Paths start with one of ${conversationFolders.map((f) => `${f}/`).join(', ')}.`
        : ' Use list_files to see what exists.';
    return new SpillwayError('PATH_NOT_FOUND', `No file at ${JSON.stringify(input)} in this conversation.${hint}`, { path: input });
  }

  private async expiredAt(relative: string): Promise<string | undefined> {
    // The shared store first; when it cannot answer (unreachable), the file log still may.
    const shared = await this.expiryLookup?.(this.key, relative).catch(() => undefined);
    if (shared !== undefined) return shared;
    const log = (await readSidecar(path.join(this.dir, expiredLogName), maxExpiredLogBytes)) ?? '';
    let found: string | undefined;
    for (const line of log.split('\n')) {
      if (!line.includes(relative)) continue;
      try {
        const entry = JSON.parse(line) as { path?: unknown; expiredAt?: unknown };
        if (entry.path === relative && typeof entry.expiredAt === 'string') found = entry.expiredAt;
      } catch {
        // a torn line from a crash: ignore it
      }
    }
    return found;
  }
}

/** mkdir with mode 0700 (the umask can only remove bits from it); an existing folder is fine. */
async function makeFolder(at: string): Promise<void> {
  await mkdir(at, folderMode).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}

function notAFile(input: string, what: string): SpillwayError {
  return new SpillwayError('PATH_NOT_FILE', `The path ${JSON.stringify(input)} is ${what}; a regular file is needed here.`, { path: input });
}
