import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { SpillwayError } from '../../src/errors.js';
import { neutralizeMarkdown } from '../../src/files/formats/markdown-safe-text.js';
import { headerNames as uniqueHeaderNames } from '../../src/files/sources/csv-rows.js';
import { checkReadOnlyStatement } from '../../src/sql/statement-check.js';
import { csvLine } from '../../src/files/formats/csv-cells.js';
import { isSignedPlainText } from '../../src/files/formats/signed-text.js';

const triggers = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠', '﹦', '﹢', '﹣', '﹫'];
const startsFormula = /^[ ]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/;

test('formula guard: whatever the text, neither a comma nor a semicolon (nor a tab) reader gets a cell that starts a formula', () => {
  const piece = fc.oneof(fc.constantFrom(...triggers, ';', ',', '|', ' ', '"', "'", '\n', 'cmd', 'a', '1'), fc.string({ maxLength: 3 }));
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
      const text = parts.join('');
      const line = csvLine([text, 1]);
      for (const delimiter of [',', ';', '\t']) {
        const rows = parse(line, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][];
        // Text starting with + or - that calls, references and links nothing (a phone number) is left as written (signed-text.ts).
        for (const cell of rows.flat()) {
          if (isSignedPlainText(cell)) continue;
          assert.doesNotMatch(cell, startsFormula, `${JSON.stringify(text)} read with ${JSON.stringify(delimiter)} gave ${JSON.stringify(cell)}`);
        }
      }
    }),
    { numRuns: 2000 },
  );
  assert.equal(csvLine(['＝1+2']), "'＝1+2\r\n");
  assert.equal(csvLine(['a;=cmd']), '"a;=cmd"\r\n');
});

test('draw_table cells: no HTML, no Markdown link or image, no bare autolink survives', () => {
  const cell = neutralizeMarkdown('![x](https://evil.example/?d=1) [click](http://a.b) <img src=x onerror=alert(1)> <https://c.d> www.e.f | a\\b\nnext');
  // Only unescaped brackets, "://" and "www." act; the escaped ones render as plain text.
  assert.doesNotMatch(cell, /(^|[^\\])!\[|(^|[^\\])\]\(|<img|<https|[^\\]:\/\/|(^|[^\\])www\./);
  assert.match(cell, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.match(cell, /\\\|/);
  assert.match(cell, /<br>next$/);
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(...'![]()<>:/wh.tps|\\ \nxa'.split('')), maxLength: 40 }), (text) => {
      const safe = neutralizeMarkdown(text);
      // A <br> is a line break: ":/<br>/" renders as two lines, never as "://".
      assert.doesNotMatch(safe.replace(/<br>/g, ' '), /<|(^|[^\\])\[|(^|[^\\])\]|[^\\]:\/\//);
    }),
  );
});

test('the SQL text check tokenizes per dialect: E-strings and dollar quotes hide nothing from the SQLite check', () => {
  const code = (sql: string, dialect: 'sqlite' | 'postgres') => {
    try {
      checkReadOnlyStatement(sql, dialect);
      return undefined;
    } catch (error) {
      return SpillwayError.is(error) ? error.code : 'THROWN';
    }
  };
  const eString = "SELECT E'\\'; DELETE FROM transactions; --' AS x";
  assert.equal(code(eString, 'postgres'), undefined, 'one E-string in PostgreSQL');
  assert.equal(code(eString, 'sqlite'), 'SQL_READ_ONLY', 'in SQLite the string ends early and DELETE is a statement');
  const dollar = 'SELECT $a$; DROP TABLE transactions; $a$ AS x';
  assert.equal(code(dollar, 'postgres'), undefined);
  assert.equal(code(dollar, 'sqlite'), 'SQL_READ_ONLY');
  assert.equal(code('SELECT 1 /* a /* nested */ DELETE */ AS x', 'postgres'), undefined, 'PostgreSQL comments nest');
  assert.equal(code('SELECT 1 /* a /* nested */ DELETE */ AS x', 'sqlite'), 'SQL_READ_ONLY', 'SQLite comments do not');
  assert.equal(code('SELECT [DELETE] FROM t', 'sqlite'), undefined, 'a bracket identifier in SQLite');
});

test('CSV header names: the same names as before (blanks, repeats with _2, _3), without quadratic work on repeated cells', () => {
  const reference = (fields: string[]) => {
    const seen = new Set<string>();
    return fields.map((field, index) => {
      let name = field.trim() === '' ? `column_${index + 1}` : field;
      for (let n = 2; seen.has(name); n += 1) name = `${field}_${n}`;
      seen.add(name);
      return name;
    });
  };
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'a_2', 'a_3', 'b', '', ' ', 'column_2', 'a_2_2'), { maxLength: 30 }), (fields) => {
      assert.deepEqual(uniqueHeaderNames(fields), reference(fields));
    }),
  );
  // 50,000 identical cells: quadratic work here would take minutes; linear work is immediate.
  const names = uniqueHeaderNames(Array.from({ length: 50_000 }, () => 'a'));
  assert.equal(new Set(names).size, 50_000);
  assert.equal(names[49_999], 'a_50000');
});
