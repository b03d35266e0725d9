import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Host } from '../host/host.js';
import { describeAttachment } from '../outputs/attachments.js';
import { isFolderName, isTempName } from '../sandbox/index.js';

export interface OutputsWatcher {
  /** Resolves once the existing folders are being watched. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface OutputsWatcherOptions {
  /** How long a file's size must stay the same before it counts as written (ms). */
  settleMs?: number;
  /** Called once each file event has been decided: announced or not (a symlink, a duplicate). For tests. */
  onDecided?: (absolutePath: string, announced: boolean) => void;
}

/**
 * Watches every conversation's outputs/ for files that appear by any route (a
 * script, an export, an operator's copy, another process) and announces each
 * as an attachment through the host's 'attachment' event, which makes the MCP
 * front send notifications/resources/list_changed to the sessions of that
 * principal and conversation. Only the root, principal folders, conversation
 * folders and outputs/ are watched:
 * results/ and the rest (which may hold 100,000 files) are never walked.
 * Symlinks are not followed and not announced; temporary files of atomic
 * writes are ignored.
 */
export function watchOutputs(host: Host, options: OutputsWatcherOptions = {}): OutputsWatcher {
  const root = host.sandbox.root;
  const logger = host.logger.child({ component: 'outputs-watcher' });
  // What the host already announced (a tool's own export): not announced twice.
  const announced = new Map<string, number>();
  const onAttachment = (event: { conversationId: string; principal: string; attachment: { path: string; bytes: number } }) => {
    announced.set(`${event.principal}/${event.conversationId}/${event.attachment.path}`, event.attachment.bytes);
    if (announced.size > 10_000) announced.delete(announced.keys().next().value as string);
  };
  host.on('attachment', onAttachment);

  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (candidate: string) => isIgnored(root, candidate),
    awaitWriteFinish: { stabilityThreshold: options.settleMs ?? 200, pollInterval: 50 },
  });

  const announce = async (absolute: string): Promise<boolean> => {
    const segments = path.relative(root, absolute).split(path.sep);
    const [principal, conversationId] = segments;
    if (principal === undefined || conversationId === undefined || segments[2] !== 'outputs' || segments.length < 4) return false;
    // lstat, not chokidar's stats (which may come from stat): a symlink is never announced.
    const info = await lstat(absolute).catch(() => undefined);
    if (info === undefined || !info.isFile()) return false;
    const sandbox = host.sandbox.conversation(conversationId, principal);
    const attachment = describeAttachment(sandbox, absolute, info.size);
    const key = `${principal}/${conversationId}/${attachment.path}`;
    if (announced.get(key) === info.size) {
      announced.delete(key); // suppress the one duplicate; a later rewrite is news again
      return false;
    }
    logger.info({ principal, conversationId, path: attachment.path, bytes: info.size }, 'new file in outputs/');
    host.emit('attachment', { conversationId, principal, attachment });
    return true;
  };
  const onFile = (absolute: string) => {
    announce(absolute)
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not register a file in outputs/');
        return false;
      })
      .then((done) => options.onDecided?.(absolute, done))
      .catch(() => undefined);
  };
  watcher.on('add', onFile);
  watcher.on('change', onFile);
  watcher.on('error', (error: unknown) => logger.warn({ err: error }, 'outputs watcher error'));

  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      host.off('attachment', onAttachment);
      await watcher.close();
    },
  };
}

/** Watch the root, each principal folder, each conversation folder and everything under its outputs/; nothing else. */
function isIgnored(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === '') return false;
  if (relative.startsWith('..') || path.isAbsolute(relative)) return true;
  const segments = relative.split(path.sep);
  // <principal>/<conversation>/outputs/...
  if (!segments.slice(0, 2).every(isFolderName)) return true;
  if (segments.length <= 2) return false;
  if (segments[2] !== 'outputs') return true;
  return isTempName(segments[segments.length - 1] as string);
}
