import path from 'node:path';
import type { Coordinator } from '../coordination/coordinator.js';
import type { Host } from '../host/host.js';
import { metadataSuffix } from '../sandbox/index.js';
import { DiskQuotaGuard } from './disk-quota-guard.js';
import type { ExpiryLog } from './expired-log.js';
import { hasQuota } from './quota.js';
import type { QuotaGuard } from './quota-guard.js';
import { SharedDiskQuotaGuard } from './shared-quota-guard.js';

export interface InstallDiskQuotaOptions {
  now?: () => Date;
  /** A fleet's coordination store: the totals are shared by every replica (SharedDiskQuotaGuard). */
  coordinator?: Coordinator;
  /** Where evicted files are recorded in a fleet (its shared expiry log). */
  expiryLog?: ExpiryLog;
}

/**
 * Puts a host's spills under the disk quota (retention.maxBytes,
 * retention.maxBytesPerConversation): registers an after-spill hook that
 * evicts the oldest non-output files when a spill passes a limit, never the
 * files just written (nor their sidecars). Free while no quota is configured;
 * the limits are read from each call's configuration, so a reload applies.
 * With a coordinator, the totals are the fleet's, kept in the store.
 * Returns the guard, for the sweep (forget) and /healthz (stats).
 */
export function installDiskQuota(host: Host, options: InstallDiskQuotaOptions = {}): QuotaGuard {
  const guard: QuotaGuard =
    options.coordinator === undefined
      ? new DiskQuotaGuard(host.sandbox.root, options.now)
      : new SharedDiskQuotaGuard({
          root: host.sandbox.root,
          coordinator: options.coordinator,
          ...(options.now === undefined ? {} : { now: options.now }),
          ...(options.expiryLog === undefined ? {} : { expiryLog: options.expiryLog }),
        });
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
