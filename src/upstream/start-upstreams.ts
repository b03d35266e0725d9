import type { Host } from '../host/host.js';
import { markOwnSchema } from '../host/validate-arguments.js';
import { listUpstreamsTool } from '../tools/upstream/list-upstreams.js';
import { upstreamGate } from './upstream-admission.js';
import { UpstreamManager } from './upstream-manager.js';
import type { UpstreamTimers } from './upstream-timers.js';

export interface StartUpstreamsOptions {
  /** Clock and timers of the connections (tests pass their own). */
  timers?: UpstreamTimers;
}

/**
 * Wires the upstream servers of the host's config into a running host:
 * registers list_upstreams, the 'upstreams' health section and the shutdown,
 * then starts connecting to each and returns at once: the host serves while
 * upstreams connect (their tools appear when ready), and failures are logged
 * and retried with back-off. Await `manager.settled()` to wait for the first
 * attempts (a one-shot CLI call does).
 */
export function startUpstreams(host: Host, options: StartUpstreamsOptions = {}): UpstreamManager {
  const manager = new UpstreamManager({
    host,
    config: host.config,
    logger: host.logger.child({ component: 'upstreams' }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  });
  const listTool = listUpstreamsTool(manager);
  markOwnSchema(listTool.inputSchema);
  host.registerTool(listTool);
  host.setHealthSource('upstreams', () => manager.health());
  host.onMissingTool((name) => manager.explainMissing(name));
  // Each configured upstream's queue shows in /healthz from the start (one added by a reload, from its first call).
  for (const name of Object.keys(host.config.upstreams)) upstreamGate(host.queues, name, host.config);
  host.onClose(() => manager.close());
  manager.start();
  return manager;
}
