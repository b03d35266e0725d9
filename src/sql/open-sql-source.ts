import type { Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { ensureDemoDatabase } from '../demo/demo-database.js';
import type { SqlSource } from './sql-source.js';
import { discardSpareQueryChild, SqliteSource } from './sqlite-source.js';

export interface OpenSqlSourceOptions {
  config: Config;
  logger?: Logger;
}

/**
 * Opens the source config.sql.source names. The demo database is built (or
 * rebuilt, when missing or damaged) in config.data.dir first; a configured
 * SQLite file is only ever opened read-only and must exist.
 */
export async function openSqlSource(options: OpenSqlSourceOptions): Promise<SqlSource> {
  const { config, logger } = options;
  const source = config.sql.source;
  const withLogger = logger === undefined ? {} : { logger };
  switch (source.type) {
    case 'demo': {
      const demo = ensureDemoDatabase({ dir: config.data.dir, rows: config.demo.rows, seed: config.demo.seed, ...withLogger });
      if (demo.created) discardSpareQueryChild(demo.file);
      return new SqliteSource({ file: demo.file, kind: 'demo', maxConcurrent: config.sql.maxConcurrent, ...withLogger });
    }
    case 'sqlite': {
      const sqlite = new SqliteSource({ file: source.file, kind: 'sqlite', maxConcurrent: config.sql.maxConcurrent, ...withLogger });
      try {
        await sqlite.check();
      } catch (error) {
        await sqlite.close();
        throw error;
      }
      return sqlite;
    }
    case 'postgres': {
      // pg is loaded only when a PostgreSQL source is configured (it is not on `serve`'s start path).
      const { PostgresSource } = await import('./postgres-source.js');
      // A server that does not answer should fail a call no later than a slow query would.
      return new PostgresSource({
        url: source.url,
        connectTimeoutMs: Math.min(10_000, config.sql.timeoutMs),
        maxConnections: config.sql.maxConcurrent,
        ...withLogger,
      });
    }
  }
}

/** The identity of a source in the configuration: when it changes, the source is reopened. */
function sourceKey(config: Config): string {
  return JSON.stringify([config.sql.source, config.sql.source.type === 'demo' ? [config.data.dir, config.demo.rows, config.demo.seed] : null]);
}

/**
 * Opens the SQL source on first use (so a host that never queries never
 * builds the demo database or connects) and reopens it when a configuration
 * reload names another source. A failed open is not cached: the next call
 * tries again.
 */
export class LazySqlSource {
  private current: { key: string; source: Promise<SqlSource> } | undefined;
  private readonly logger: Logger | undefined;

  constructor(logger?: Logger) {
    this.logger = logger;
  }

  async get(config: Config): Promise<SqlSource> {
    const key = sourceKey(config);
    if (this.current !== undefined && this.current.key !== key) {
      const previous = this.current.source;
      this.current = undefined;
      previous.then((source) => source.close()).catch(() => undefined);
    }
    if (this.current === undefined) {
      const source = openSqlSource({ config, ...(this.logger === undefined ? {} : { logger: this.logger }) });
      const entry = { key, source };
      this.current = entry;
      source.catch(() => {
        if (this.current === entry) this.current = undefined;
      });
    }
    return await this.current.source;
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (current !== undefined) await current.source.then((source) => source.close()).catch(() => undefined);
  }
}
