import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { Host } from '../host/host.js';
import { markOwnSchema } from '../host/validate-arguments.js';
import type { ApprovalHandler } from '../host/tool.js';
import { installDownloadLinks } from '../downloads/download-links.js';
import { defaultKeyPrefix, openCoordinator } from '../coordination/open-coordinator.js';
import type { Coordinator } from '../coordination/coordinator.js';
import { sharedSpillNumbers } from '../coordination/shared-spill-numbers.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ExpiryLog } from '../retention/expired-log.js';
import { installDiskQuota } from '../retention/install-disk-quota.js';
import type { QuotaGuard } from '../retention/quota-guard.js';
import { sharedExpiryLog } from '../retention/shared-expiry-log.js';
import { SandboxRoot } from '../sandbox/index.js';
import { builtinTools } from '../tools/builtin-tools.js';
import { resultPrompts } from '../tools/prompts/result-prompts.js';
import type { WorkerKind } from '../files/pool/worker-task.js';
import type { GateTimers } from '../util/admission-gate.js';

export interface CreateHostOptions {
  /** A loaded configuration; when absent, config/default.json (plus SPILLWAY_CONFIG) is loaded. */
  config?: Config;
  logger?: Logger;
  /** Approval callback for tools the policy marks `ask` (library use). */
  approve?: ApprovalHandler;
  /** Register the built-in tools (read_file, export_table, ...). Default true. */
  builtins?: boolean;
  now?: () => Date;
  /** Timers of the admission queues' waiting deadlines (tests fire a deadline on demand). */
  queueTimers?: GateTimers;
  /** Replaces the worker entry module of a file format (instrumented or custom writers, fault-injection tests). */
  workerModules?: Partial<Record<WorkerKind, URL>>;
}

/** A host as createHost assembles it, with the disk-quota guard on its spills (the scheduled sweep shares it). */
export interface AssembledHost {
  host: Host;
  quota: QuotaGuard;
  /** The fleet's coordination store when coordination.redis is set (closed with the host). */
  coordinator?: Coordinator;
  /** The fleet's expiry log (in the coordination store) when coordination.redis is set; the sweep records there. */
  expiryLog?: ExpiryLog;
}

/**
 * Creates a host: opens the sandbox root (creating it and its marker when new),
 * puts its spills under the disk quota (retention.maxBytes*) and registers the
 * built-in tools. With coordination.redis, the quota totals and the expiry
 * log are the fleet's, kept in Redis.
 *
 * @example
 * const host = await createHost({ config: loadConfig({ overrides: { sandbox: { root: './sandbox' } } }) });
 * host.registerTool({ name: 'query', description: '…', inputSchema: { type: 'object' }, handler: async () => ({ value: rows }) });
 * const result = await host.execute({ name: 'query', arguments: {} }, { conversationId: 'c1' });
 * result.spill?.path; // "results/0001-query.jsonl"
 */
export async function createHost(options: CreateHostOptions = {}): Promise<Host> {
  return (await assembleHost(options)).host;
}

/** createHost, also handing back the parts a server wires to its services (startRuntime). */
export async function assembleHost(options: CreateHostOptions = {}): Promise<AssembledHost> {
  const config = options.config ?? loadConfig();
  const sandbox = await SandboxRoot.open(config.sandbox.root);
  const coordinator = await openCoordinator(config, options.logger ?? silentLogger());
  const host = new Host({
    config,
    sandbox,
    ...(coordinator === undefined ? {} : { spillNumbers: sharedSpillNumbers(coordinator, sandbox.root) }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.queueTimers === undefined ? {} : { queueTimers: options.queueTimers }),
  });
  // A fleet records removed files in the store (shared-expiry-log.ts) and answers PATH_EXPIRED from it.
  const expiryLog = coordinator === undefined ? undefined : sharedExpiryLog(coordinator);
  sandbox.setExpiryLookup(expiryLog?.lookup);
  if (coordinator !== undefined) {
    host.onClose(() => coordinator.close());
    host.setHealthCheck('coordination', () => coordinator.ping());
    host.setHealthSource('coordination', () => ({ store: coordinator.store, connected: coordinator.connected() }));
  }
  const quota = installDiskQuota(host, {
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(coordinator === undefined ? {} : { coordinator }),
    ...(expiryLog === undefined ? {} : { expiryLog }),
  });
  // Every output is recorded with the tool that made it (the download route checks its policy again); cards get signed links when server.publicUrl is set.
  installDownloadLinks(host, options.now === undefined ? {} : { now: options.now });
  if (options.builtins !== false) {
    const files = options.workerModules === undefined ? {} : { workerModules: options.workerModules };
    // A fleet (Redis) builds files through its job queue; one process on its own threads.
    const redis = config.coordination.redis;
    const jobs =
      redis === undefined
        ? undefined
        : // Loaded only for a fleet: BullMQ and ioredis stay off the start path of a single process.
          await import('../jobs/install-file-jobs.js')
            .then(({ installFileJobs }) => installFileJobs(host, redis, { keyPrefix: redis.keyPrefix ?? defaultKeyPrefix, ...files }))
            .catch(async (error: unknown) => {
              await host.close();
              throw error;
            });
    for (const tool of await builtinTools(host, { ...files, ...(jobs ?? {}) })) {
      markOwnSchema(tool.inputSchema);
      host.registerTool(tool);
    }
    for (const prompt of resultPrompts) host.prompts.register(prompt);
  }
  return { host, quota, ...(coordinator === undefined ? {} : { coordinator }), ...(expiryLog === undefined ? {} : { expiryLog }) };
}
