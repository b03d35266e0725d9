#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's test runner.
// Node 20's `node --test` takes no globs, so the files are found here.
//
//   node scripts/run-tests.mjs [PART ...]      files whose path under dist/test/ contains a PART
//   node scripts/run-tests.mjs --runtime       only the areas that depend on the Node runtime itself
//
// CI runs the whole suite on Node 20 and `--runtime` on the second Node: the areas below load
// native modules (better-sqlite3, re2, DuckDB, resvg), start worker threads or child processes,
// serve HTTP, or use a runtime API whose behaviour moved between Node versions. The areas left
// out are plain logic over files and values, which a second runtime would only repeat.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const runtimeAreas = [
  'ai-sdk', // the agent loop of ai 7 needs Node 22+: only the second Node runs it
  'analysis',
  'cli',
  'coordination',
  'downloads',
  'e2e',
  'files',
  'fleet',
  'jobs',
  'mcp',
  'sandbox',
  'screening', // re2 is a native module
  'scripts',
  'security',
  'sql',
  'upstream',
  'watch',
];

// Within those areas, the files whose time goes to LibreOffice converting documents: the
// documents come from the same JavaScript libraries on either runtime, and the other tests of
// files/ read them back on both, so the second Node does not convert them again.
const officeRenderFiles = [
  'files/libreoffice.test.js',
  'files/render.test.js',
  'files/wide-tables.test.js',
  'files/mixed-scripts.test.js',
  'files/mixed-scripts-render.test.js',
];

const root = path.resolve('dist/test');
const args = process.argv.slice(2);
const runtimeOnly = args.includes('--runtime');
const filter = args.filter((arg) => arg !== '--runtime');

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'fixtures' ? [] : find(full);
    return name.endsWith('.test.js') ? [full] : [];
  });
}

/** A test file's path below dist/test/, with forward slashes. */
const relative = (file) => path.relative(root, file).split(path.sep).join('/');
const area = (file) => relative(file).split('/')[0];
const files = find(root)
  // Match below dist/test/, so a checkout folder name never matches every file.
  .filter((file) => filter.length === 0 || filter.some((part) => relative(file).includes(part)))
  .filter((file) => !runtimeOnly || (runtimeAreas.includes(area(file)) && !officeRenderFiles.includes(relative(file))))
  .sort();
if (files.length === 0) {
  console.error(`no test files found under ${root}${filter.length ? ` matching ${filter.join(', ')}` : ''}`);
  process.exit(1);
}
if (runtimeOnly)
  console.log(`runtime areas only (${runtimeAreas.join(', ')}; not the office conversions ${officeRenderFiles.join(', ')}): ${files.length} test files`);
// Test files run three at a time on two cores: much of a file's time is spent waiting on
// the processes it starts (LibreOffice, Redis, HAProxy, servers): measured on an idle machine,
// two at a time used 135% of the two cores (313 s), three 153% (287 s), every test passing both
// ways. SPILLWAY_TEST_CONCURRENCY overrides.
const concurrency = Number(process.env.SPILLWAY_TEST_CONCURRENCY) || 3;
// The tests' temporary folders go in one folder of the run's own: whatever is left there
// once every test has ended is a test (or the code under test) that does not clean up after
// itself, and fails the run by name.
const runTemp = mkdtempSync(path.join(tmpdir(), 'spillway-suite-'));
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: runTemp },
});
const leftovers = readdirSync(runTemp);
rmSync(runTemp, { recursive: true, force: true });
if (leftovers.length > 0) {
  console.error(`\n✖ the tests left ${leftovers.length} entries in their temporary folder (each test removes what it makes): ${leftovers.sort().join(', ')}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
