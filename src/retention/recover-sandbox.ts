import type { Logger } from '../log/logger.js';
import { checkSweepRoot } from './check-sweep-root.js';
import { listConversations } from './disk-usage.js';
import { Pacer } from '../util/pacer.js';
import { conversationDir } from './plan-conversation.js';
import { emptyLeftoverReport, mergeLeftovers, recoverConversation, type LeftoverReport } from './recover-leftovers.js';

export interface RecoverSandboxOptions {
  root: string;
  /** retention.tempGraceMs */
  graceMs: number;
  now?: () => Date;
  logger?: Logger;
}

/**
 * The start-up recovery: what a crash left in every conversation (temporary
 * second links on published files, temporary files and sidecars without data
 * past the grace period) is removed before the sweep's next run. Needs no
 * sweep lock: each removal re-checks the file it listed, and a publish that
 * loses its temporary second link to this treats it as done.
 */
export async function recoverSandbox(options: RecoverSandboxOptions): Promise<LeftoverReport> {
  const root = await checkSweepRoot(options.root);
  const nowMs = (options.now ?? (() => new Date()))().getTime();
  const pacer = new Pacer();
  const total = emptyLeftoverReport();
  for (const id of await listConversations(root)) {
    const found = await recoverConversation({ dir: conversationDir(root, id), graceMs: options.graceMs, nowMs, pacer });
    mergeLeftovers(total, found, id);
  }
  if (total.removed.files > 0 || total.linksRepaired > 0 || total.problems.length > 0) {
    options.logger?.info(
      { leftoversRemoved: total.removed, linksRepaired: total.linksRepaired, problems: total.problems.slice(0, 100) },
      'start-up recovery removed what interrupted writes left',
    );
  }
  return total;
}
