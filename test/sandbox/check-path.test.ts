import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkRelativePath, maxPathLength } from '../../src/sandbox/check-path.js';
import { SpillwayError } from '../../src/errors.js';

function codeOf(input: unknown): string | undefined {
  try {
    checkRelativePath(input);
    return undefined;
  } catch (error) {
    assert.ok(SpillwayError.is(error), 'only coded errors');
    return error.code;
  }
}

test('each lexical rule is refused with the code that names it', () => {
  assert.equal(codeOf(''), 'PATH_EMPTY');
  assert.equal(codeOf(undefined), 'PATH_EMPTY');
  assert.equal(codeOf(42), 'PATH_EMPTY');
  assert.equal(codeOf('results/a\0.jsonl'), 'PATH_NUL');
  assert.equal(codeOf('results\\..\\..\\etc'), 'PATH_BACKSLASH');
  assert.equal(codeOf('..\\x'), 'PATH_BACKSLASH');
  assert.equal(codeOf('/etc/passwd'), 'PATH_ABSOLUTE');
  assert.equal(codeOf('//server/share'), 'PATH_ABSOLUTE');
  assert.equal(codeOf('C:/Windows'), 'PATH_ABSOLUTE');
  assert.equal(codeOf('~/x'), 'PATH_ABSOLUTE');
  assert.equal(codeOf('..'), 'PATH_TRAVERSAL');
  assert.equal(codeOf('results/../../other/results/x'), 'PATH_TRAVERSAL');
  assert.equal(codeOf('results/./../x'), 'PATH_TRAVERSAL');
  assert.equal(codeOf(`results/${'a'.repeat(maxPathLength)}`), 'PATH_TOO_LONG');
});

test('harmless spellings are kept exactly, never decoded or trimmed', () => {
  assert.deepEqual(checkRelativePath('results/0001-a.jsonl'), ['results', '0001-a.jsonl']);
  assert.deepEqual(checkRelativePath('./results//x/'), ['results', 'x']);
  assert.deepEqual(checkRelativePath(' results/x '), [' results', 'x ']);
  assert.deepEqual(checkRelativePath('results/%2e%2e/x'), ['results', '%2e%2e', 'x']);
  assert.deepEqual(checkRelativePath('results/．．/x'), ['results', '．．', 'x']);
  assert.deepEqual(checkRelativePath('results/...'), ['results', '...']);
});

test('property: a path that passes has no segment that can leave the folder', () => {
  const segment = fc.oneof(
    fc.constantFrom('..', '.', '', '~', 'C:', '\\', '..\\..', '\0', 'results', 'errors', '%2e%2e', '．．', '\u202e'),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );
  fc.assert(
    fc.property(fc.array(segment, { maxLength: 8 }), fc.boolean(), (segments, leadingSlash) => {
      const input = (leadingSlash ? '/' : '') + segments.join('/');
      let result: string[];
      try {
        result = checkRelativePath(input);
      } catch (error) {
        assert.ok(SpillwayError.is(error) && error.code.startsWith('PATH_'));
        return;
      }
      assert.ok(!input.startsWith('/'));
      assert.ok(!input.includes('\0') && !input.includes('\\'));
      for (const part of result) {
        assert.notEqual(part, '..');
        assert.notEqual(part, '.');
        assert.notEqual(part, '');
        assert.ok(!part.includes('/'));
      }
      // what is used is what was checked: the segments rejoin to the input minus "." and empty parts
      assert.equal(result.join('/'), input.split('/').filter((part) => part !== '' && part !== '.').join('/'));
    }),
    { numRuns: 2000 },
  );
});
