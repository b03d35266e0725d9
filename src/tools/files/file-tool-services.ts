import type { Host } from '../../host/host.js';
import { FilePool } from './file-pool.js';

/** What the file tools share: the real sandbox root and the worker pool (created on first use). */
export interface FileToolServices {
  sandboxRoot: string;
  pool(): FilePool;
}

/**
 * Services for one host: the pool is sized from host.config.workers when the
 * first file is built, reports in the health check, and closes with the host.
 */
export function fileToolServices(host: Host): FileToolServices {
  let pool: FilePool | undefined;
  host.onClose(async () => {
    await pool?.close();
  });
  host.setHealthSource('workers', () => pool?.health() ?? { started: false });
  return {
    sandboxRoot: host.sandbox.root,
    pool() {
      if (pool === undefined) {
        const { poolSize, maxQueue, taskTimeoutMs } = host.config.workers;
        pool = new FilePool({ poolSize, maxQueue, taskTimeoutMs, logger: host.logger });
      }
      return pool;
    },
  };
}
