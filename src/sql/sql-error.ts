import { SpillwayError } from '../errors.js';
import { lineAndColumn, pointAt } from './sql-tokens.js';

export interface DatabaseErrorInput {
  /** "SQLite" or "PostgreSQL", for the message. */
  database: string;
  /** The SQL text the model sent (positions refer to it). */
  sql: string;
  message: string;
  /** The database's own error code (SQLITE_ERROR, 42703, ...). */
  code?: string | undefined;
  /** 0-based offset of the error in `sql`, when the database reported one. */
  offset?: number | undefined;
}

/**
 * A database error as the model should read it: the database's message and
 * code, where in the statement it happened (line, column and a caret), and
 * what to do. SQLite does not give positions through better-sqlite3, so its
 * `near "X"` and `no such column: X` messages are located in the text.
 */
export function databaseError(input: DatabaseErrorInput): SpillwayError {
  const offset = input.offset ?? locateInMessage(input.sql, input.message);
  const code = input.code === undefined ? '' : ` (${input.code})`;
  let where = '';
  const details: Record<string, unknown> = { database: input.database, message: input.message };
  if (input.code !== undefined) details.databaseCode = input.code;
  if (offset !== undefined && offset >= 0 && offset <= input.sql.length) {
    const { line, column } = lineAndColumn(input.sql, offset);
    where = ` at line ${line}, column ${column}:\n${pointAt(input.sql, offset)}`;
    details.line = line;
    details.column = column;
  }
  return new SpillwayError('SQL_ERROR', `${input.database} error${code}: ${input.message}${where}\nFix the statement and run query_sql again.`, details);
}

function locateInMessage(sql: string, message: string): number | undefined {
  const near = /near "((?:[^"]|"")*)"/.exec(message);
  const missing = /no such (?:column|table|function): (?:[\w$]+\.)?([\w$]+)/.exec(message);
  const needle = near?.[1]?.replace(/""/g, '"') ?? missing?.[1];
  if (needle === undefined || needle.length === 0) return undefined;
  const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const bounded = /^\w/.test(needle) ? new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`, 'i') : new RegExp(escaped, 'i');
  const match = bounded.exec(sql);
  return match?.index;
}
