import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { defaultKeyPrefix } from '../../coordination/open-coordinator.js';
import { redactUrl } from '../../util/redact-url.js';
import { fileJobQueueName } from '../../jobs/job-names.js';
import { createStartupLogger } from '../../log/logger.js';
import { SandboxRoot } from '../../sandbox/index.js';
import type { CliIo } from '../output.js';
import { checkWritableFolder, startFailed } from '../startup-checks.js';

export const workerUsage = `spillway worker [--config FILE]

Builds files for a fleet: takes export, document and table jobs from the
BullMQ queue in the Redis of coordination.redis and builds them on
workers.poolSize threads (0 = one per core), in the sandbox on the shared
volume (sandbox.root, as mounted on this node). Prints one "ready" line when
it takes jobs. SIGTERM or SIGINT: stops taking jobs, lets the running ones
finish, exits 0. Without coordination.redis it exits 2; when Redis cannot be
reached at start, 1 (one line on stderr, no log lines).

  --config FILE   configuration (default SPILLWAY_CONFIG, then config/default.json)

Examples:
  spillway worker --config /etc/spillway/config.json
  SPILLWAY_CONFIG=fleet.json spillway worker`;

export async function workerCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string' } }, strict: true });
  const config = loadConfig({ file: values.config });
  const redis = config.coordination.redis;
  if (redis === undefined) {
    io.err('spillway worker: coordination.redis is not set; a worker takes jobs from the Redis the replicas share (set coordination.redis.url in the config).');
    return 2;
  }
  // The start's log lines wait: a worker that cannot start ends with one line, not a log.
  const startup = createStartupLogger(config.log.level);
  const logger = startup.logger;
  // BullMQ loads only for this verb, never on the start path of the others.
  const { startFileJobWorker } = await import('../../jobs/file-job-worker.js');
  const worker = await checkWritableFolder(config.sandbox.root, 'sandbox.root')
    .then(() => SandboxRoot.open(config.sandbox.root))
    .then((sandbox) =>
      startFileJobWorker({
        redisUrl: redis.url,
        keyPrefix: redis.keyPrefix ?? defaultKeyPrefix,
        sandboxRoot: sandbox.root,
        ...config.workers,
        chartMemoryBytes: config.charts.memoryBytes,
        lockMs: config.coordination.jobs.lockMs,
        retries: config.coordination.jobs.retries,
        logger,
      }),
    )
    .catch((error: unknown) => {
      startFailed(startup);
      throw error;
    });
  startup.release();
  io.out(`spillway worker: ready (${worker.threads} threads, queue ${fileJobQueueName} at ${redactUrl(redis.url)})`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'stopping: running jobs finish first');
  await worker.close();
  return 0;
}

/** The verb as `spillway` runs it. */
export const command = { run: workerCommand, usage: workerUsage };
