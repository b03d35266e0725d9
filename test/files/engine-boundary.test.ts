import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The checkout: this file runs as dist/test/files/engine-boundary.test.js. */
const root = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
}

/** Relative imports of a file, as paths from the checkout root ("src/files/pool/worker-run.js"). */
function relativeImports(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) =>
    path.posix.join(path.posix.dirname(file.split(path.sep).join('/')), match[1] as string),
  );
}

test('workers/ import only an engine (files, charts) and errors, util, never a tool', () => {
  const files = sourceFiles('workers');
  assert.ok(files.length >= 5);
  for (const file of files) {
    for (const target of relativeImports(file)) {
      assert.match(target, /^src\/(files\/|charts\/|util\/|errors\.js$)/, `${file} imports ${target}`);
    }
  }
});

test('the engines (src/files, src/script, src/analysis, src/charts) and the CLI do not reach into tools, the host or the servers above them', () => {
  for (const folder of ['src/files', 'src/script', 'src/analysis', 'src/charts']) {
    for (const file of sourceFiles(folder)) {
      for (const target of relativeImports(file)) {
        assert.doesNotMatch(target, /^src\/(tools|host|mcp|cli|runtime)\//, `${file} imports ${target}`);
      }
    }
  }
  for (const file of sourceFiles('src/cli')) {
    for (const target of relativeImports(file)) assert.doesNotMatch(target, /^src\/tools\/(files|script)\//, `${file} imports ${target}`);
  }
});
