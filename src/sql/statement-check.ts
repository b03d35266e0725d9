import { SpillwayError } from '../errors.js';
import { lineAndColumn, pointAt, scanSql, type SqlDialect, type SqlToken } from './sql-tokens.js';

export type { SqlDialect };

/** A statement that passed the checks, ready for the database. */
export interface CheckedStatement {
  /** The statement without trailing semicolons and comments. */
  body: string;
  /** Its first keyword (SELECT, WITH, PRAGMA, ...). */
  leading: string;
  /** True when it can sit inside `SELECT ... FROM (<body>)` (a query, not EXPLAIN/PRAGMA/SHOW). */
  wrappable: boolean;
}

const leadingAllowed: Record<SqlDialect, ReadonlySet<string>> = {
  sqlite: new Set(['SELECT', 'WITH', 'VALUES', 'EXPLAIN', 'PRAGMA']),
  postgres: new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN']),
};

const wrappableLeading = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

/**
 * Words that only appear in statements that change data, schema or the
 * connection. A word followed by "(" is a function call and passes
 * (SQLite has replace(), a table may have a function named like a verb).
 */
const writeWords = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'UPSERT',
  'INTO',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'ATTACH',
  'DETACH',
  'VACUUM',
  'REINDEX',
  'GRANT',
  'REVOKE',
  'COPY',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
]);

/** Statement kinds SQLite or PostgreSQL know that do something other than read. */
const statementKeywords = new Set([
  ...writeWords,
  'REPLACE',
  'BEGIN',
  'END',
  'START',
  'RELEASE',
  'SET',
  'RESET',
  'ANALYZE',
  'CALL',
  'DO',
  'LOCK',
  'LISTEN',
  'NOTIFY',
  'UNLISTEN',
  'PREPARE',
  'EXECUTE',
  'DEALLOCATE',
  'DISCARD',
  'CLUSTER',
  'REFRESH',
  'COMMENT',
  'SECURITY',
  'IMPORT',
  'LOAD',
  'CHECKPOINT',
  'REASSIGN',
  'ABORT',
  'DECLARE',
  'FETCH',
  'MOVE',
  'CLOSE',
  'PRAGMA',
  'EXPLAIN',
  'SHOW',
  'TABLE',
]);

/** Descriptive PRAGMAs whose read form takes a table or index name: PRAGMA table_info(t). */
const pragmasTakingArgument = new Set([
  'TABLE_INFO',
  'TABLE_XINFO',
  'TABLE_LIST',
  'INDEX_LIST',
  'INDEX_INFO',
  'INDEX_XINFO',
  'FOREIGN_KEY_LIST',
  'INTEGRITY_CHECK',
  'QUICK_CHECK',
  'FOREIGN_KEY_CHECK',
]);

/** PRAGMAs that only describe the database (read forms only: no "=" and no value). */
const informationalPragmas = new Set([
  ...pragmasTakingArgument,
  'DATABASE_LIST',
  'COLLATION_LIST',
  'FUNCTION_LIST',
  'MODULE_LIST',
  'PRAGMA_LIST',
  'COMPILE_OPTIONS',
  'ENCODING',
  'PAGE_COUNT',
  'PAGE_SIZE',
  'FREELIST_COUNT',
  'USER_VERSION',
  'SCHEMA_VERSION',
  'APPLICATION_ID',
  'JOURNAL_MODE',
  'FOREIGN_KEYS',
]);

function refuse(sql: string, token: SqlToken, reason: string, fix: string): never {
  const { line, column } = lineAndColumn(sql, token.offset);
  throw new SpillwayError('SQL_READ_ONLY', `query_sql only reads: ${reason} (line ${line}, column ${column}):\n${pointAt(sql, token.offset)}\n${fix}`, {
    word: token.text,
    line,
    column,
  });
}

/**
 * The second line of defence behind the database's own read-only mode: one
 * statement, a reading statement kind, no write verbs anywhere outside
 * literals and comments. Throws SQL_READ_ONLY (or SQL_ERROR for empty or
 * unterminated text) with the position of the offending word.
 */
export function checkReadOnlyStatement(sql: string, dialect: SqlDialect): CheckedStatement {
  const scan = scanSql(sql, dialect);
  if (scan.unterminated !== undefined) {
    const { line, column } = lineAndColumn(sql, scan.unterminated.offset);
    throw new SpillwayError(
      'SQL_ERROR',
      `The SQL has an unterminated ${scan.unterminated.what} starting at line ${line}, column ${column}:\n${pointAt(sql, scan.unterminated.offset)}\nClose it and send the query again.`,
      {
        line,
        column,
      },
    );
  }
  const tokens = scan.tokens;
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last]?.text === ';') last -= 1;
  if (last < 0) throw new SpillwayError('SQL_ERROR', 'The SQL is empty. Send one SELECT statement, e.g. SELECT * FROM transactions LIMIT 10.');
  const statement = tokens.slice(0, last + 1);

  const separator = statement.find((token) => token.kind === 'punct' && token.text === ';');
  if (separator !== undefined) {
    refuse(sql, separator, 'it runs one statement per call and this text holds more than one', 'Send each query as its own query_sql call.');
  }

  const first = statement.find((token) => token.kind === 'word');
  const startsWithParen = statement[0]?.kind === 'punct' && statement[0].text === '(';
  if (first === undefined) throw new SpillwayError('SQL_ERROR', 'The SQL holds no statement keyword. Send one SELECT statement.');
  if (!leadingAllowed[dialect].has(first.text) && !statementKeywords.has(first.text)) {
    const { line, column } = lineAndColumn(sql, first.offset);
    throw new SpillwayError(
      'SQL_ERROR',
      `Syntax error: a statement cannot start with ${first.text} (line ${line}, column ${column}):\n${pointAt(sql, first.offset)}\nStart it with one of: ${[...leadingAllowed[dialect]].join(', ')}.`,
      { word: first.text, line, column },
    );
  }
  if (!leadingAllowed[dialect].has(first.text)) {
    refuse(
      sql,
      first,
      `${first.text} statements are not allowed`,
      `Send a SELECT (or WITH … SELECT) statement; allowed statement kinds here: ${[...leadingAllowed[dialect]].join(', ')}.`,
    );
  }

  for (const [index, token] of statement.entries()) {
    if (token.kind !== 'word' || !writeWords.has(token.text)) continue;
    const following = statement[index + 1];
    if (following?.kind === 'punct' && following.text === '(' && token.text !== 'INTO') continue;
    refuse(sql, token, `${token.text} is not allowed`, 'Write a query that only reads (SELECT); data and schema cannot be changed through query_sql.');
  }

  if (first.text === 'PRAGMA') checkPragma(sql, statement);

  const body = sql.slice(0, (statement[last]?.offset ?? 0) + (statement[last]?.text.length ?? 0));
  return { body, leading: first.text, wrappable: startsWithParen || wrappableLeading.has(first.text) };
}

function checkPragma(sql: string, statement: SqlToken[]): void {
  // PRAGMA [schema.]name [(argument)]: a value after "=" or a bare argument sets something.
  const assignment = statement.find((token) => token.kind === 'punct' && token.text === '=');
  if (assignment !== undefined)
    refuse(sql, assignment, 'PRAGMA assignments change the connection or the file', 'Read a PRAGMA without a value, e.g. PRAGMA table_info(transactions).');
  const words = statement.filter((token) => token.kind === 'word' || token.kind === 'quoted');
  const nameIndex = statement[2]?.text === '.' ? 3 : 1;
  const name = statement[nameIndex];
  if (name === undefined || name.kind !== 'word' || !informationalPragmas.has(name.text)) {
    refuse(
      sql,
      name ?? words[0] ?? (statement[0] as SqlToken),
      `PRAGMA ${name?.text ?? ''} is not one of the descriptive pragmas`,
      `Use one of: ${[...informationalPragmas].map((pragma) => pragma.toLowerCase()).join(', ')}; or query sqlite_schema.`,
    );
  }
  const hasArgument = statement.some((token) => token.kind === 'punct' && token.text === '(');
  if (hasArgument && !pragmasTakingArgument.has(name.text)) {
    refuse(sql, name, `PRAGMA ${name.text.toLowerCase()}(…) sets a value`, `Read it without an argument: PRAGMA ${name.text.toLowerCase()}.`);
  }
}
