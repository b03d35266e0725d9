import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { demoFileName } from '../demo/demo-file.js';
import { forkSpareQueryChild } from './sqlite-source.js';

/**
 * Forks the query child of the configured SQLite source (demo or file) ahead
 * of the host, when its file is there: the first query_sql then finds it
 * started. PostgreSQL needs nothing; a missing file is left to the source,
 * which builds (demo) or reports it.
 */
export function warmSqlSource(config: Config): void {
  const source = config.sql.source;
  const file = source.type === 'demo' ? path.join(config.data.dir, demoFileName) : source.type === 'sqlite' ? source.file : undefined;
  if (file !== undefined && existsSync(file)) forkSpareQueryChild(file);
}
