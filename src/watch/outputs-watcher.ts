import type { Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { Host } from '../host/host.js';
import { describeAttachment } from '../outputs/attachments.js';
import { conversationDepth, isFolderName, isPrincipalName, isTempName } from '../sandbox/index.js';
import { FolderWatches } from './folder-watches.js';

export interface OutputsWatcher {
  /** Resolves once the existing folders are being watched (serving does not wait for it). */
  ready: Promise<void>;
  /** The /healthz section: ready or still scanning, folders watched and polled. */
  health(): OutputsWatcherHealth;
  close(): Promise<void>;
}

export interface OutputsWatcherHealth {
  ready: boolean;
  /** Folders with a kernel watch (the root, conversation folders, outputs/ and its sub-folders). */
  watchedFolders: number;
  /** Folders past watch.maxWatchedFolders, looked at every watch.pollIntervalMs. */
  polledFolders: number;
  maxWatchedFolders: number;
}

export interface OutputsWatcherOptions {
  /** How long a file's size must stay the same before it counts as written (ms). */
  settleMs?: number;
  /** Called once each file event has been decided: announced or not (a symlink, a duplicate). For tests. */
  onDecided?: (absolutePath: string, announced: boolean) => void;
  /** Defaults: the host's watch.* configuration. */
  maxWatchedFolders?: number;
  pollIntervalMs?: number;
  outputsDepth?: number;
}

/** What a path under the root is to the watcher. */
type Place =
  | { kind: 'tree' }
  /** `containers`: the folders from the root to the conversation (with principals: principal, conversation). */
  | { kind: 'outputs'; conversationId: string; principal: string; containers: string[]; level: number }
  | { kind: 'ignored' };

/**
 * Watches every conversation's outputs/ for files that appear by any route (a
 * script, an export, an operator's copy, another process) and announces each
 * as an attachment through the host's 'attachment' event, which makes the MCP
 * front send notifications/resources/list_changed to the sessions of that
 * principal and conversation (<root>/<principal>/<conversation>/outputs/). Folders are watched, never files: the root, each conversation
 * folder and its outputs/ (with sub-folders to watch.outputsDepth), one kernel
 * watch each up to watch.maxWatchedFolders, polled past it. results/ and the
 * rest (which may hold 100,000 files) are never listed. Files already there at
 * start are not announced and not looked at; symlinks are not followed and
 * not announced; temporary files of atomic writes are ignored.
 */
export function watchOutputs(host: Host, options: OutputsWatcherOptions = {}): OutputsWatcher {
  const root = host.sandbox.root;
  const settings = host.config.watch;
  const maxWatchedFolders = options.maxWatchedFolders ?? settings.maxWatchedFolders;
  const outputsDepth = options.outputsDepth ?? settings.outputsDepth;
  const settleMs = options.settleMs ?? 200;
  const logger = host.logger.child({ component: 'outputs-watcher' });
  // What the host already announced (a tool's own export): not announced twice.
  const announced = new Map<string, number>();
  const onAttachment = (event: { conversationId: string; principal: string; attachment: { path: string; bytes: number } }) => {
    remember(announced, `${event.principal}/${event.conversationId}/${event.attachment.path}`, event.attachment.bytes);
  };
  host.on('attachment', onAttachment);

  // Size and mtime of the last decision on each file: a file seen twice (by its folder's listing and its event) is decided once.
  const decided = new Map<string, string>();
  const settling = new Map<string, { timer: NodeJS.Timeout; size?: number }>();
  let ready = false;
  let closed = false;
  let pollingLogged = false;

  const placeOf = (absolute: string): Place => {
    const relative = path.relative(root, absolute);
    if (relative === '') return { kind: 'tree' };
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return { kind: 'ignored' };
    const segments = relative.split(path.sep);
    const containers = segments.slice(0, conversationDepth);
    if (!containers.every((name, level) => (level === 0 ? isPrincipalName(name) : isFolderName(name)))) return { kind: 'ignored' };
    if (segments.length <= conversationDepth) return { kind: 'tree' };
    if (segments[conversationDepth] !== 'outputs') return { kind: 'ignored' };
    if (isTempName(segments[segments.length - 1] as string)) return { kind: 'ignored' };
    return {
      kind: 'outputs',
      conversationId: segments[conversationDepth - 1] as string,
      principal: segments[0] as string,
      containers,
      level: segments.length - conversationDepth - 1,
    };
  };

  const decide = (absolute: string, outcome: boolean) => options.onDecided?.(absolute, outcome);

  const announce = async (absolute: string): Promise<boolean> => {
    const place = placeOf(absolute);
    if (place.kind !== 'outputs' || place.level < 1) return false;
    const info = await lstat(absolute).catch(() => undefined);
    if (info === undefined || !info.isFile()) return false;
    const signature = `${info.size}:${info.mtimeMs}`;
    if (decided.get(absolute) === signature) return false;
    remember(decided, absolute, signature);
    const sandbox = host.sandbox.conversation(place.conversationId, place.principal);
    const attachment = describeAttachment(sandbox, absolute, info.size);
    const key = `${place.principal}/${place.conversationId}/${attachment.path}`;
    if (announced.get(key) === info.size) {
      announced.delete(key); // suppress the one duplicate; a later rewrite is news again
      return false;
    }
    logger.info({ principal: place.principal, conversationId: place.conversationId, path: attachment.path, bytes: info.size }, 'new file in outputs/');
    host.emit('attachment', { conversationId: place.conversationId, principal: place.principal, attachment });
    return true;
  };

  /** Waits until a file's size holds for settleMs (a writer may still be at it), then decides on it. */
  const settle = (absolute: string) => {
    const pending = settling.get(absolute);
    if (pending !== undefined) clearTimeout(pending.timer);
    const state: { timer: NodeJS.Timeout; size?: number } = pending ?? ({} as { timer: NodeJS.Timeout });
    state.timer = setTimeout(() => void check(absolute, state), settleMs);
    settling.set(absolute, state);
  };
  const check = async (absolute: string, state: { timer: NodeJS.Timeout; size?: number }) => {
    const info = await lstat(absolute).catch(() => undefined);
    if (closed || settling.get(absolute) !== state) return;
    // A symlink is decided at once (never announced); a regular file once its size holds.
    if (info !== undefined && info.isFile() && info.size !== state.size) {
      state.size = info.size;
      state.timer = setTimeout(() => void check(absolute, state), settleMs);
      return;
    }
    settling.delete(absolute);
    if (info === undefined) return; // gone before it settled: nothing to announce
    let outcome = false;
    try {
      outcome = await announce(absolute);
    } catch (error) {
      logger.warn({ err: error }, 'could not register a file in outputs/');
    }
    decide(absolute, outcome);
  };

  const folders: FolderWatches = new FolderWatches({
    maxWatched: maxWatchedFolders,
    pollIntervalMs: options.pollIntervalMs ?? settings.pollIntervalMs,
    onEntry: (folder, name) => void onEntry(path.join(folder, name)),
    onGone: (folder, error) => {
      if (error !== undefined) logger.warn({ err: error, folder: path.relative(root, folder) }, 'outputs watcher lost a folder');
    },
  });

  /** Something under a followed folder appeared, changed or went. */
  const onEntry = async (absolute: string) => {
    if (closed) return;
    const place = placeOf(absolute);
    if (place.kind === 'ignored') return;
    const info = await lstat(absolute).catch(() => undefined);
    if (info === undefined) {
      folders.remove(absolute);
      return;
    }
    if (info.isDirectory()) {
      if (place.kind === 'tree' || place.level <= outputsDepth) await follow(absolute, true);
      return;
    }
    if (place.kind === 'outputs') settle(absolute);
  };

  /**
   * Starts following a folder. A folder found at start has its sub-folders
   * followed; one that appeared later also has its files looked at, since they
   * may have landed before its watch began.
   */
  const follow = async (folder: string, appeared: boolean): Promise<void> => {
    if (closed || folders.has(folder)) return;
    let entries: Dirent[];
    try {
      entries = await folders.add(folder);
    } catch {
      return; // removed meanwhile, or unreadable: nothing to follow
    }
    if (!pollingLogged && folders.counts().polled > 0) {
      pollingLogged = true;
      logger.warn({ maxWatchedFolders }, 'more folders than watch.maxWatchedFolders: the rest are polled');
    }
    const children: Promise<void>[] = [];
    for (const entry of entries) {
      const child = path.join(folder, entry.name);
      const place = placeOf(child);
      if (place.kind === 'ignored') continue;
      if (entry.isDirectory()) {
        if (place.kind === 'tree' || place.level <= outputsDepth) children.push(follow(child, appeared));
      } else if (appeared && place.kind === 'outputs') settle(child);
      // Bounded fan-out: a root with 100,000 conversations is walked in steps.
      if (children.length >= 32) await Promise.all(children.splice(0));
    }
    await Promise.all(children);
  };

  const started = performance.now();
  const readyPromise = follow(root, false).then(() => {
    ready = true;
    const counts = folders.counts();
    logger.info({ watchedFolders: counts.watched, polledFolders: counts.polled, ms: Math.round(performance.now() - started) }, 'outputs watcher ready');
  });

  return {
    ready: readyPromise,
    health() {
      const counts = folders.counts();
      return { ready, watchedFolders: counts.watched, polledFolders: counts.polled, maxWatchedFolders };
    },
    async close() {
      closed = true;
      host.off('attachment', onAttachment);
      for (const state of settling.values()) clearTimeout(state.timer);
      settling.clear();
      folders.close();
      await readyPromise.catch(() => undefined);
    },
  };
}

/** Adds to a bounded map: past 10,000 entries the oldest goes. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > 10_000) map.delete(map.keys().next().value as string);
}
