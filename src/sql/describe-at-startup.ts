import { existsSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { formatCount } from '../util/format.js';
import { ensureDemoDatabase } from '../demo/demo-database.js';
import { redactUrl } from '../util/redact-url.js';

/**
 * Readies the configured SQL source for a server start and says what it is.
 * The demo database is built here on first start (so the first query_sql
 * call is not the one that waits); other sources are only described: a
 * database that is down must not stop the server, query_sql reports it.
 */
export function prepareSqlSourceAtStartup(options: { config: Config; logger?: Logger }): string {
  const { config } = options;
  const source = config.sql.source;
  switch (source.type) {
    case 'demo': {
      const demo = ensureDemoDatabase({
        dir: config.data.dir,
        rows: config.demo.rows,
        seed: config.demo.seed,
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
      const built = demo.created ? `, built now in ${formatCount(demo.buildMs ?? 0)} ms` : '';
      return `demo SQLite ${demo.file} (${formatCount(demo.transactions)} transactions, ${formatCount(demo.accounts)} accounts${built})`;
    }
    case 'sqlite':
      return `SQLite ${source.file} (read-only)${existsSync(source.file) ? '' : ' — the file does not exist; query_sql will say so'}`;
    case 'postgres':
      return `PostgreSQL ${redactUrl(source.url)} (read-only transactions)`;
  }
}
