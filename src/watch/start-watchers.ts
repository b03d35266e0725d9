import type { Config } from '../config/schema.js';
import type { Host } from '../host/host.js';
import { watchConfig, type ConfigWatcher } from './config-watcher.js';
import { watchOutputs, type OutputsWatcher } from './outputs-watcher.js';

export interface Watchers {
  outputs: OutputsWatcher;
  config: ConfigWatcher | undefined;
  close(): Promise<void>;
}

/**
 * Starts the watchers a serving host runs: outputs/ of every conversation and,
 * when the server was started with a configuration file, that file. Both stop
 * when the host closes.
 */
export async function startWatchers(
  host: Host,
  options: { configFile?: string | undefined; onConfigApplied?: (config: Config, previous: Config) => void },
): Promise<Watchers> {
  const outputs = watchOutputs(host);
  const config =
    options.configFile === undefined
      ? undefined
      : watchConfig(host, { file: options.configFile, ...(options.onConfigApplied === undefined ? {} : { onApplied: options.onConfigApplied }) });
  await Promise.all([outputs.ready, config?.ready]);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.all([outputs.close(), config?.close()]);
  };
  host.onClose(close);
  return { outputs, config, close };
}
