import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { closeNames } from '../../src/util/close-names.js';
import { formatBytes, formatCount, plural } from '../../src/util/format.js';
import { parseJsonSafely } from '../../src/util/safe-json.js';
import { compileUserRegExp } from '../../src/util/safe-regexp.js';
import { toJsonPath } from '../../src/util/schema-errors.js';
import { matchesToolPattern, mostSpecificMatch } from '../../src/util/tool-pattern.js';

test('tool patterns: * matches any run; the most specific pattern wins', () => {
  assert.equal(matchesToolPattern('github__*', 'github__create_issue'), true);
  assert.equal(matchesToolPattern('github__*', 'gitlab__x'), false);
  assert.equal(matchesToolPattern('a.b', 'aXb'), false, 'regex characters match themselves');
  assert.equal(mostSpecificMatch({ '*': 1, 'github__*': 2, github__create_issue: 3 }, 'github__create_issue'), 3);
  assert.equal(mostSpecificMatch({ '*': 1, 'github__*': 2 }, 'github__x'), 2);
  assert.equal(mostSpecificMatch({ 'x*': 1 }, 'y'), undefined);
});

test('property: a pattern without * matches only itself', () => {
  fc.assert(
    fc.property(
      fc.string().filter((s) => !s.includes('*')),
      fc.string(),
      (pattern, name) => {
        assert.equal(matchesToolPattern(pattern, name), pattern === name);
      },
    ),
  );
});

test('close names find typos and substrings, nearest first', () => {
  assert.deepEqual(closeNames('read_fiel', ['read_file', 'search_file', 'list_files', 'query_sql']).slice(0, 1), ['read_file']);
  assert.ok(closeNames('export', ['export_table', 'draw_table']).includes('export_table'));
  assert.deepEqual(closeNames('zzzzzz', ['read_file']), []);
});

test('JSON paths and formatting for the model', () => {
  assert.equal(toJsonPath(''), '$');
  assert.equal(toJsonPath('/sort/0/column'), '$.sort[0].column');
  assert.equal(toJsonPath('/a~1b/with space'), '$["a/b"]["with space"]');
  assert.equal(formatCount(10000), '10,000');
  assert.equal(plural(1, 'row'), '1 row');
  assert.equal(plural(2, 'row'), '2 rows');
  assert.equal(formatBytes(512), '512 bytes');
  assert.equal(formatBytes(1536), '1.5 KiB');
});

test('formatCount groups every integer as en-US toLocaleString does, and shows -0 as 0 (property)', () => {
  // toLocaleString writes -0 as "-0"; a count never reads that way.
  assert.equal(formatCount(-0), '0');
  fc.assert(
    fc.property(fc.oneof(fc.maxSafeInteger(), fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.double({ noNaN: true })), (value) => {
      assert.equal(formatCount(value), Object.is(value, -0) ? '0' : value.toLocaleString('en-US'));
    }),
  );
});

test('model JSON with __proto__ or constructor.prototype is refused', () => {
  assert.throws(() => parseJsonSafely('{"__proto__": {"x": 1}}'));
  assert.throws(() => parseJsonSafely('{"constructor": {"prototype": {"x": 1}}}'));
  assert.deepEqual(parseJsonSafely('{"a": [1]}'), { a: [1] });
});

test('a user regex that backtracks badly still finishes (RE2, with u and i too); an invalid or unsupported one is INVALID_ARGUMENTS', () => {
  for (const flags of ['', 'u', 'iu']) {
    const regex = compileUserRegExp('(a+)+$', flags);
    assert.equal(regex.test(`${'a'.repeat(100_000)}!`), false);
  }
  assert.equal(compileUserRegExp('é', 'iu').test('CAFÉ'), true);
  assert.throws(() => compileUserRegExp('('), { code: 'INVALID_ARGUMENTS' });
  assert.throws(
    () => compileUserRegExp('(a)\\1'),
    (error: Error) => /backreferences/.test(error.message),
  );
  assert.throws(() => compileUserRegExp('x'.repeat(5000)), { code: 'INVALID_ARGUMENTS' });
});
