import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { admits } from '../helpers/node-range.js';

// The README promises the Node versions package.json's engines.node names, and CI runs
// Node 20 and 24. A runtime dependency that declares a narrower engines.node makes
// `npm ci` warn (EBADENGINE) for every user, as nanoid 6 under docx did: this reads
// package-lock.json, so a later update cannot bring that back unnoticed.

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const read = (name: string) => JSON.parse(readFileSync(path.join(packageRoot, name), 'utf8')) as Record<string, unknown>;
const manifest = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as { packages: Record<string, LockEntry> };

/** The lowest version engines.node admits (">=20.19" → 20.19.0), and the first release of each major CI runs. */
const promised = [/^>=\s*(\d+(?:\.\d+){0,2})$/.exec(manifest.engines.node)?.[1] ?? 'unparsed', '24.0.0'].map((version) =>
  version.split('.').concat(['0', '0']).slice(0, 3).join('.'),
);

test('the range reader agrees with npm on the engine ranges found in the lock file', () => {
  const cases: [string, string, boolean][] = [
    ['>=20', '20.0.0', true],
    ['>= 20.19.0', '20.18.3', false],
    ['>= 20.19.0', '20.19.0', true],
    ['^22 || ^24 || >=26', '20.20.2', false],
    ['^22 || ^24 || >=26', '24.0.0', true],
    ['^22 || ^24 || >=26', '25.1.0', false],
    ['^18 || >=20', '20.0.0', true],
    ['^20.17.0 || >=22.9.0', '20.19.0', true],
    ['^20.17.0 || >=22.9.0', '22.8.0', false],
    ['^20.19.0 || ^22.12.0 || >=23', '24.0.0', true],
    ['20.x || 22.x || 23.x || 24.x || 25.x || 26.x', '21.0.0', false],
    ['20.x || 22.x || 23.x || 24.x || 25.x || 26.x', '24.11.1', true],
    ['6.* || 8.* || >= 10.*', '9.1.0', false],
    ['6.* || 8.* || >= 10.*', '20.19.0', true],
    ['>=16 || 14 >=14.17', '14.16.0', false],
    ['>=16 || 14 >=14.17', '14.18.0', true],
    ['*', '20.0.0', true],
    ['>=0.10', '24.0.0', true],
    ['~20.19', '20.20.0', false],
    ['1.2 - 20', '20.99.0', true],
    ['<20', '20.0.0', false],
    ['>20', '20.5.0', false],
    ['<=20', '20.5.0', true],
  ];
  for (const [range, version, expected] of cases) assert.equal(admits(range, version), expected, `${range} admits ${version}`);
});

test("package.json's engines.node admits the Node versions CI runs", () => {
  assert.notEqual(promised[0], 'unparsed.0.0', `engines.node should read ">=MAJOR[.MINOR]": ${manifest.engines.node}`);
  for (const version of [...promised, '20.20.2']) assert.ok(admits(manifest.engines.node, version), version);
});

test('every runtime dependency in package-lock.json admits the promised Node versions (no EBADENGINE on npm ci)', () => {
  const refused: string[] = [];
  let checked = 0;
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === '' || entry.dev === true) continue;
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (range === undefined) continue;
    checked += 1;
    const outside = promised.filter((version) => !admits(range, version));
    if (outside.length > 0) refused.push(`${where}@${entry.version}: engines.node "${range}" refuses Node ${outside.join(', ')}`);
  }
  assert.ok(checked > 50, `only ${checked} runtime packages declare engines.node`);
  assert.deepEqual(refused, []);
});
