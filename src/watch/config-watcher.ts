import { EventEmitter } from 'node:events';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { toSpillwayError } from '../errors.js';
import type { Host } from '../host/host.js';

/** Keys a running server cannot change: they are kept as they were, and the log says a restart is needed. */
export const restartOnlyKeys = ['sandbox', 'data', 'server', 'workers', 'upstreams', 'watch'] as const satisfies readonly (keyof Config)[];

export interface ConfigWatcherEvents {
  /** A valid change was applied; `changed` lists the top-level keys that differ. */
  applied: [{ config: Config; changed: string[]; needsRestart: string[] }];
  /** The file changed but is invalid (or unreadable); the running configuration stays. */
  rejected: [{ message: string }];
}

export interface ConfigWatcher extends EventEmitter<ConfigWatcherEvents> {
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface ConfigWatcherOptions {
  /** The configuration file the server was started with (--config or SPILLWAY_CONFIG). */
  file: string;
  /** Called after a valid change was applied to the host (reschedule the sweep, ...). */
  onApplied?: (config: Config, previous: Config) => void;
  /** Wait for writes to settle before reading (ms). */
  debounceMs?: number;
}

/**
 * Watches the configuration file and applies a valid change without a restart
 * (spill thresholds, policy, retention, caps, log level) through
 * host.updateConfig; an invalid change is logged with every problem and
 * ignored, so a typo never takes a running server down. The folder is watched
 * rather than the file, so editors that save by renaming a new file into place
 * are seen too.
 */
export function watchConfig(host: Host, options: ConfigWatcherOptions): ConfigWatcher {
  const file = path.resolve(options.file);
  const logger = host.logger.child({ component: 'config-watcher' });
  const emitter = new EventEmitter<ConfigWatcherEvents>() as ConfigWatcher;
  const watcher: FSWatcher = watch(path.dirname(file), {
    ignoreInitial: true,
    depth: 0,
    ignored: (candidate: string) => candidate !== file && candidate !== path.dirname(file),
    // A plain save truncates then writes: wait until the size settles, so a half-written file is not read as invalid.
    awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 25 },
  });
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const reload = () => {
    if (closed) return;
    const previous = host.config;
    let next: Config;
    try {
      next = loadConfig({ file, env: {} });
    } catch (error) {
      const message = toSpillwayError(error).message;
      logger.warn({ file, problem: message }, 'configuration change ignored: the file is not valid; the running configuration stays');
      emitter.emit('rejected', { message });
      return;
    }
    const needsRestart: string[] = [];
    for (const key of restartOnlyKeys) {
      if (JSON.stringify(next[key]) !== JSON.stringify(previous[key])) needsRestart.push(key);
      (next as unknown as Record<string, unknown>)[key] = previous[key];
    }
    const changed = (Object.keys(next) as (keyof Config)[]).filter((key) => JSON.stringify(next[key]) !== JSON.stringify(previous[key]));
    if (changed.length === 0 && needsRestart.length === 0) return;
    host.updateConfig(next);
    if (next.log.level !== previous.log.level) host.logger.level = next.log.level;
    options.onApplied?.(next, previous);
    logger.info({ file, changed }, 'configuration reloaded');
    if (needsRestart.length > 0) logger.warn({ file, keys: needsRestart }, 'these configuration keys only take effect after a restart');
    emitter.emit('applied', { config: next, changed, needsRestart });
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(reload, options.debounceMs ?? 100);
  };
  watcher.on('add', schedule);
  watcher.on('change', schedule);
  watcher.on('error', (error: unknown) => logger.warn({ err: error }, 'configuration watcher error'));

  emitter.ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  emitter.close = async () => {
    closed = true;
    clearTimeout(timer);
    await watcher.close();
  };
  return emitter;
}
