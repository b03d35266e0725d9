import type { Host } from '../host/host.js';
import { listUpstreamsTool } from '../tools/upstream/list-upstreams.js';
import { upstreamGate } from './upstream-admission.js';
import { UpstreamManager } from './upstream-manager.js';

/**
 * Wires the upstream servers of the host's config into a running host:
 * registers list_upstreams, the 'upstreams' health section and the shutdown,
 * then connects to each (failures are logged and retried with back-off).
 */
export async function startUpstreams(host: Host): Promise<UpstreamManager> {
  const manager = new UpstreamManager({ host, config: host.config, logger: host.logger.child({ component: 'upstreams' }) });
  host.registerTool(listUpstreamsTool(manager));
  host.setHealthSource('upstreams', () => manager.health());
  // Each configured upstream's queue shows in /healthz from the start (one added by a reload, from its first call).
  for (const name of Object.keys(host.config.upstreams)) upstreamGate(host.queues, name, host.config);
  host.onClose(() => manager.close());
  await manager.start();
  return manager;
}
