import { SpillwayError } from '../errors.js';
import { scanSql } from '../sql/sql-tokens.js';

/**
 * Functions that show the host rather than the data: settings (allowed_paths
 * holds the conversation's absolute paths, secret_directory the home folder),
 * and the ones that run a string as SQL, which would hide any of them from
 * this check.
 */
const revealingFunctions = new Set(['current_setting', 'getenv', 'query', 'query_table', 'json_execute_serialized_sql', 'which_secret']);

/** The catalog (duckdb_settings(), duckdb_extensions(), pragma_database_list, pg_settings, ...): refused as a call or a table. */
function isCatalogName(name: string): boolean {
  return name.startsWith('duckdb_') || name.startsWith('pragma_') || name === 'pg_settings';
}

/** A word or quoted identifier as DuckDB looks it up: case-insensitive even when quoted. */
function identifierOf(token: { kind: string; text: string }): string | undefined {
  if (token.kind === 'word') return token.text.toLowerCase();
  if (token.kind === 'quoted' && token.text.startsWith('"')) return token.text.slice(1, -1).replace(/""/g, '"').toLowerCase();
  return undefined;
}

/**
 * Refuses (SQL_FILE_REFUSED) a query_files statement that reads DuckDB's settings or catalog:
 * they hold absolute host paths, which the model never needs. DuckDB lexes
 * like PostgreSQL (nested comments, E'' and $$ strings), so the PostgreSQL
 * scan sees the same names DuckDB will.
 */
export function refuseRevealingCalls(sql: string): void {
  const { tokens } = scanSql(sql, 'postgres');
  for (const [index, token] of tokens.entries()) {
    const name = identifierOf(token);
    if (name === undefined) continue;
    const next = tokens[index + 1];
    const called = next?.kind === 'punct' && next.text === '(';
    if (isCatalogName(name) || (called && revealingFunctions.has(name))) {
      throw new SpillwayError(
        'SQL_FILE_REFUSED',
        `query_files reads the conversation's own files, not DuckDB's settings or catalog: ${name} is refused (so are current_setting, duckdb_*(), pragma_*, pg_settings, getenv, query() and query_table()). Send a SELECT over the files; inspect_file shows a file's columns.`,
        { file: name, refused: name },
      );
    }
  }
}
