import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SpillwayError } from '../../src/errors.js';
import { scanSql } from '../../src/sql/sql-tokens.js';
import { checkReadOnlyStatement } from '../../src/sql/statement-check.js';

const writeWords = [
  'INSERT',
  'UPDATE',
  'DELETE',
  'CREATE',
  'DROP',
  'ALTER',
  'ATTACH',
  'DETACH',
  'VACUUM',
  'REINDEX',
  'TRUNCATE',
  'GRANT',
  'REVOKE',
  'COPY',
  'INTO',
  'MERGE',
];

function code(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return SpillwayError.is(error) ? error.code : 'THROWN';
  }
}

test('the lexer never throws and its tokens lie inside the text, in order', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(...'abE; \'"`[]$-/*()\n=1.\\'.split('')), maxLength: 60 }),
      fc.constantFrom<'sqlite' | 'postgres'>('sqlite', 'postgres'),
      (sql, dialect) => {
        const { tokens } = scanSql(sql, dialect);
        let last = -1;
        for (const token of tokens) {
          assert.ok(token.offset > last && token.offset < sql.length);
          last = token.offset;
        }
      },
    ),
  );
});

test('write words inside literals, quoted identifiers and comments do not refuse a SELECT', () => {
  fc.assert(
    fc.property(fc.constantFrom(...writeWords), fc.constantFrom<'sqlite' | 'postgres'>('sqlite', 'postgres'), (word, dialect) => {
      const sql = `SELECT '${word} x; y' AS "${word}", 1 /* ${word} */ -- ${word};\nFROM t`;
      assert.equal(
        code(() => checkReadOnlyStatement(sql, dialect)),
        undefined,
      );
    }),
  );
  assert.equal(
    code(() => checkReadOnlyStatement('SELECT $$ DELETE; $$ AS body', 'postgres')),
    undefined,
  );
  assert.equal(
    code(() => checkReadOnlyStatement("SELECT E'it\\'s; DROP TABLE x' AS quoted", 'postgres')),
    undefined,
  );
  assert.equal(
    code(() => checkReadOnlyStatement("SELECT 'a\\'; DROP TABLE x; --'", 'sqlite')),
    'SQL_READ_ONLY',
  );
  assert.equal(
    code(() => checkReadOnlyStatement("SELECT replace(note, 'a', 'b') FROM transactions", 'sqlite')),
    undefined,
  );
});

test('a write word as a token anywhere in a reading statement is refused with its position', () => {
  fc.assert(
    fc.property(fc.constantFrom(...writeWords), fc.constantFrom('', 'x, ', '(SELECT 1) AS s, '), (word, before) => {
      const sql = `SELECT ${before}1 FROM t WHERE id IN (SELECT id FROM u)\n  ${word} t2`;
      assert.equal(
        code(() => checkReadOnlyStatement(sql, 'sqlite')),
        'SQL_READ_ONLY',
      );
    }),
  );
  assert.throws(() => checkReadOnlyStatement('SELECT 1;\n  DELETE FROM t', 'sqlite'), /one statement per call[\s\S]*line 1, column 9/);
});

test('trailing semicolons and comments are trimmed; the statement kind is known', () => {
  assert.deepEqual(checkReadOnlyStatement('SELECT 1 ;; -- done', 'sqlite'), { body: 'SELECT 1', leading: 'SELECT', wrappable: true });
  assert.equal(checkReadOnlyStatement('PRAGMA table_info(transactions)', 'sqlite').wrappable, false);
  assert.equal(
    code(() => checkReadOnlyStatement('PRAGMA journal_mode = WAL', 'sqlite')),
    'SQL_READ_ONLY',
  );
  assert.equal(
    code(() => checkReadOnlyStatement('PRAGMA user_version(3)', 'sqlite')),
    'SQL_READ_ONLY',
  );
  assert.equal(
    code(() => checkReadOnlyStatement('SHOW search_path', 'sqlite')),
    'SQL_READ_ONLY',
  );
  assert.equal(
    code(() => checkReadOnlyStatement('SHOW search_path', 'postgres')),
    undefined,
  );
  assert.equal(
    code(() => checkReadOnlyStatement("SELECT 'open", 'sqlite')),
    'SQL_ERROR',
  );
  assert.equal(
    code(() => checkReadOnlyStatement('  ;; ', 'sqlite')),
    'SQL_ERROR',
  );
});
