import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scopeName, selectScopes } from '../../bench/select.js';
import { packageRoot } from '../../src/config/package-root.js';

const scopes = ['export', 'fleet', 'fleet-exports', 'spill', 'spill-checks', 'query-files'];

test('a name selects exactly the scope of that name, never those it is a prefix of', () => {
  assert.deepEqual(selectScopes(scopes, ['spill']), { ok: true, scopes: ['spill'] });
  assert.deepEqual(selectScopes(scopes, ['fleet']), { ok: true, scopes: ['fleet'] });
  assert.deepEqual(selectScopes(scopes, ['export']), { ok: true, scopes: ['export'] });
  assert.deepEqual(selectScopes(scopes, ['fleet-exports']), { ok: true, scopes: ['fleet-exports'] });
  assert.deepEqual(selectScopes(scopes, ['spill-checks', 'spill']), { ok: true, scopes: ['spill', 'spill-checks'] });
});

test('no name selects every scope', () => {
  assert.deepEqual(selectScopes(scopes, []), { ok: true, scopes: [...scopes].sort() });
});

test('an unknown name is an error that lists the scopes', () => {
  for (const names of [['fleet.bench'], ['spil'], ['spill', 'nope'], ['query']]) {
    const selection = selectScopes(scopes, names);
    assert.equal(selection.ok, false, names.join(' '));
    if (selection.ok) continue;
    for (const scope of scopes) assert.match(selection.message, new RegExp(`\\b${scope}\\b`));
    assert.match(selection.message, /no benchmark scope named/);
  }
});

test("a scope's name is its file's base name without .bench.ts", () => {
  assert.equal(scopeName('fleet-exports.bench.js'), 'fleet-exports');
  assert.equal(scopeName('bench/query-files.bench.ts'), 'query-files');
  assert.equal(scopeName('run.js'), undefined);
  assert.equal(scopeName('bench-setup.ts'), undefined);
  // Every file in bench/ that is a scope has a name the runner selects on its own.
  const files = readdirSync(path.join(packageRoot, 'bench')).filter((name) => name.endsWith('.bench.ts'));
  assert.ok(files.length > 0);
  const names = files.map((name) => scopeName(name) as string);
  for (const name of names) assert.deepEqual(selectScopes(names, [name]), { ok: true, scopes: [name] });
});

test('every bench command in the docs names scopes that exist', () => {
  const names = readdirSync(path.join(packageRoot, 'bench')).flatMap((name) => scopeName(name) ?? []);
  const docs = ['bench/README.md', 'README.md', ...readdirSync(path.join(packageRoot, 'docs')).map((name) => `docs/${name}`)].filter((file) =>
    file.endsWith('.md'),
  );
  let commands = 0;
  for (const file of docs) {
    const text = readFileSync(path.join(packageRoot, file), 'utf8');
    // A command in backticks, possibly broken over a line: the words after `npm run bench --` or `run.js` up to the closing backtick.
    for (const match of text.matchAll(/(?:npm run bench --|node dist\/bench\/run\.js)((?:\s+[A-Za-z][\w.-]*)+)\s*`/g)) {
      const requested = (match[1] ?? '')
        .trim()
        .split(/\s+/)
        .filter((word) => word !== 'NAME');
      if (requested.length === 0) continue;
      commands += 1;
      const selection = selectScopes(names, requested);
      assert.ok(selection.ok, `${file}: \`${match[0]}\`: ${selection.ok ? '' : selection.message}`);
    }
  }
  assert.ok(commands > 10, `found only ${commands} bench commands in the docs`);
});
