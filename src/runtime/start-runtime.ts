import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { assembleHost } from './create-host.js';
import type { Host } from '../host/host.js';
import { createLogger, type Logger } from '../log/logger.js';
import { leaseSweepLock } from '../retention/lease-sweep-lock.js';
import { startRetention } from '../retention/start-retention.js';
import { startUpstreams } from '../upstream/start-upstreams.js';
import { startWatchers } from '../watch/start-watchers.js';

export interface Runtime {
  config: Config;
  host: Host;
  logger: Logger;
  /** Stops every service and closes the host. */
  stop(): Promise<void>;
}

export interface StartRuntimeOptions {
  configFile?: string | undefined;
  config?: Config;
  logger?: Logger;
}

/**
 * The long-running assembly behind `spillway serve` and `spillway demo`: the
 * host with its built-in tools plus the services a server runs beside it
 * (each capability wires its own here).
 */
export async function startRuntime(options: StartRuntimeOptions = {}): Promise<Runtime> {
  const config = options.config ?? loadConfig({ file: options.configFile });
  const logger = options.logger ?? createLogger(config.log.level);
  const { host, quota, coordinator, expiryLog } = await assembleHost({ config, logger });
  // Upstream MCP servers: start connecting, serve without waiting; their tools appear as each connects.
  startUpstreams(host);
  // Retention: the scheduled sweep (+ /healthz "retention"); watchers: outputs/ and the config file (hot reload).
  // A fleet (coordination.redis) sweeps under a Redis lease; one process under the pid file lock.
  const lock =
    coordinator === undefined
      ? undefined
      : leaseSweepLock(coordinator, { leaseMs: config.coordination.sweepLeaseMs, logger: logger.child({ component: 'retention' }) });
  const retention = startRetention(host, { quota, ...(lock === undefined ? {} : { lock }), ...(expiryLog === undefined ? {} : { expiryLog }) });
  const configFile = options.config === undefined ? (options.configFile ?? (process.env.SPILLWAY_CONFIG || undefined)) : undefined;
  await startWatchers(host, { configFile, onConfigApplied: (next) => retention.applyConfig(next) });
  return {
    config,
    host,
    logger,
    stop: () => host.close(),
  };
}
