import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';

// docs/architecture.md must name every folder under src/ (as `src/<path>/`), so a
// newcomer finds every part of the tree from it; a branch that adds a folder documents it.

/** Every folder below `root`, at any depth, as "/"-separated paths relative to it. */
export function foldersBelow(root: string, prefix = ''): string[] {
  return readdirSync(path.join(root, prefix), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      return [folder, ...foldersBelow(root, folder)];
    })
    .sort();
}

/** A mention of `src/<folder>/` as a whole path: "src/files/" is not mentioned by "src/tools/files/". */
function mentions(text: string, srcPath: string): boolean {
  const escaped = srcPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w./-])${escaped}`).test(text);
}

/** The folders (relative to src/) that `text` never names as `src/<folder>/`. */
export function unmentionedFolders(folders: readonly string[], text: string): string[] {
  return folders.filter((folder) => !mentions(text, `src/${folder}/`));
}

/** Every `src/<path>/` the text names, relative to src/ ("files/pool"). */
export function namedFolders(text: string): string[] {
  const named = [...text.matchAll(/(?<![\w./-])src\/((?:[\w.-]+\/)+)/g)].map((match) => (match[1] as string).replace(/\/$/, ''));
  return [...new Set(named)].sort();
}

const srcRoot = path.join(packageRoot, 'src');
const docPath = path.join(packageRoot, 'docs', 'architecture.md');

test('the check finds a folder the text does not name, nested ones included, and takes no folder for its namesake elsewhere', () => {
  const text = 'The engine is `src/files/` with `src/files/pool/`; the tools are in src/tools/.';
  assert.deepEqual(unmentionedFolders(['files', 'files/pool', 'files/sources', 'tools', 'tools/files'], text), ['files/sources', 'tools/files']);
  assert.deepEqual(unmentionedFolders(['files'], 'only `src/tools/files/` here'), ['files']);
  assert.deepEqual(namedFolders(text), ['files', 'files/pool', 'tools']);
});

test('the folder listing reaches nested folders under src/', () => {
  const folders = foldersBelow(srcRoot);
  for (const expected of ['host', 'files', 'files/sources', 'files/pool', 'tools/files']) {
    assert.ok(folders.includes(expected), `found ${folders.join(', ')}`);
  }
});

test('docs/architecture.md names every folder under src/', () => {
  const missing = unmentionedFolders(foldersBelow(srcRoot), readFileSync(docPath, 'utf8'));
  assert.deepEqual(
    missing.map((folder) => `src/${folder}/`),
    [],
    `docs/architecture.md does not mention these folders; add a section saying what each owns and its key files`,
  );
});

test('every src/ folder docs/architecture.md names exists', () => {
  const folders = new Set(foldersBelow(srcRoot));
  const stale = namedFolders(readFileSync(docPath, 'utf8')).filter((folder) => !folders.has(folder));
  assert.deepEqual(
    stale.map((folder) => `src/${folder}/`),
    [],
    'docs/architecture.md names folders that are not in src/ (moved or removed): update it',
  );
});
