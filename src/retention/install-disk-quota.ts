import path from 'node:path';
import type { Host } from '../host/host.js';
import { metadataSuffix } from '../sandbox/index.js';
import { DiskQuotaGuard } from './disk-quota-guard.js';
import { hasQuota } from './quota.js';

/**
 * Puts a host's spills under the disk quota (retention.maxBytes,
 * retention.maxBytesPerConversation): registers an after-spill hook that
 * evicts the oldest non-output files when a spill passes a limit, never the
 * files just written (nor their sidecars). Free while no quota is configured;
 * the limits are read from each call's configuration, so a reload applies.
 * Returns the guard, for the sweep (forget) and /healthz (stats).
 */
export function installDiskQuota(host: Host, options: { now?: () => Date } = {}): DiskQuotaGuard {
  const guard = new DiskQuotaGuard(host.sandbox.root, options.now);
  host.onAfterSpill(async ({ sandbox, files, config, logger }) => {
    const { retention } = config;
    if (!hasQuota(retention)) return;
    const written = files.flatMap((ref) => {
      const absolute = path.join(sandbox.dir, ref.path);
      return [absolute, `${absolute}${metadataSuffix}`];
    });
    await guard.afterWrite({ conversationId: sandbox.key, written, limits: retention, retentionDays: retention.days, logger });
  });
  return guard;
}
