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
 * when the server was started with a configuration file, that file. Resolves
 * once the configuration file is watched; the outputs watcher keeps walking
 * the sandbox in the background. Both stop when the host closes.
 */
export async function startWatchers(
  host: Host,
  options: { configFile?: string | undefined; onConfigApplied?: (config: Config, previous: Config) => void },
): Promise<Watchers> {
  // Serving does not wait for the outputs watcher's first walk (40,000 outputs): /healthz "outputsWatcher" says when it is ready.
  const outputs = watchOutputs(host);
  host.setHealthSource('outputsWatcher', () => outputs.health());
  outputs.ready.catch((error: unknown) => host.logger.warn({ err: error }, 'outputs watcher failed to start'));
  const config =
    options.configFile === undefined
      ? undefined
      : watchConfig(host, { file: options.configFile, ...(options.onConfigApplied === undefined ? {} : { onApplied: options.onConfigApplied }) });
  await config?.ready;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.all([outputs.close(), config?.close()]);
  };
  host.onClose(close);
  return { outputs, config, close };
}
