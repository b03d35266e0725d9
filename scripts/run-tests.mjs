#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's test runner.
// Node 20's `node --test` takes no globs, so the files are found here.
//
//   node scripts/run-tests.mjs [PART ...]      files whose path under dist/test/ contains a PART
//   node scripts/run-tests.mjs --runtime       only the files that depend on the Node runtime itself
//
// CI runs the whole suite on Node 20 and `--runtime` on the second Node. What can differ between
// runtimes is the native modules (re2, better-sqlite3, DuckDB, resvg: each built or loaded for that
// ABI), worker threads, child processes, sockets and HTTP, timers and the file-system calls the
// sandbox leans on. The files below cover each of those once or twice, chosen among the quick
// ones; the rest of the suite is logic over files and values that the first runtime already
// checked, and repeating it doubled CI's time (issue 24). A listed file that no longer exists
// fails the run, so a rename cannot silently drop a runtime check.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What each group exercises on the runtime → its test files (below dist/test/, without `.test.js`). */
const runtimeFiles = {
  'ai 7 (Node 22+ only: only the second Node runs it) and ai 6 beside it': ['ai-sdk/agent-loop-ai7', 'ai-sdk/agent-loop', 'ai-sdk/with-spill'],
  're2, the native linear regex engine (screening, search_files, client patterns)': [
    'screening/secret-rules',
    'screening/block-scan',
    'screening/search-files',
    'security/bounded-work',
  ],
  'better-sqlite3 (query_sql over SQLite, the demo database) and the pg client': [
    'sql/read-only',
    'sql/spare-query-child',
    'sql/postgres',
    'demo/demo-database',
  ],
  'DuckDB bindings in child processes (query_files, Parquet export, profiles)': [
    'analysis/files-sql-spare',
    'analysis/export-parquet',
    'analysis/inspect-file',
    'analysis/pinned-view',
  ],
  'resvg (SVG and charts drawn as PNG)': ['analysis/svg-image'],
  'worker threads (the piscina pool building files, run_script with its watchdog)': [
    'files/worker-failures',
    'files/export-csv',
    'files/export-xlsx',
    'files/csv-segments',
    'files/documents',
    'scripts/run-script-api',
    'scripts/script-watchdog',
  ],
  'HTTP and the MCP transports (Streamable HTTP, SSE resumption, stdio, downloads)': [
    'mcp/mcp-server',
    'mcp/resumable-streams',
    'security/http-limits',
    'downloads/download-route',
    'downloads/byte-ranges',
    'e2e/serve',
    'smoke',
  ],
  'child processes and the CLI (bin/spillway, upstream servers over stdio)': [
    'cli/worker',
    'cli/first-start',
    'upstream/upstreams-cli',
    'upstream/reloaded-timeout',
  ],
  'file-system calls the sandbox relies on (no-follow opens, links, renames, watchers, a failing disk)': [
    'sandbox/check-path',
    'sandbox/conversation-sandbox',
    'sandbox/disk-errors',
    'sandbox/path-property',
    'sandbox/principals',
    'sandbox/publish-once',
    'sandbox/publish-race',
    'spill/failing-disk',
    'retention/sweep-lock',
    'watch/config-watcher',
    'watch/outputs-watcher',
  ],
  'sockets and timers of the Redis and BullMQ clients, and the cron schedule': [
    'coordination/coordinator',
    'coordination/fleet',
    'jobs/job-redis',
    'retention/scheduler',
  ],
};

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
const found = find(root);
const runtimeList = new Set(
  Object.values(runtimeFiles)
    .flat()
    .map((name) => `${name}.test.js`),
);
if (runtimeOnly) {
  const foundNames = new Set(found.map(relative));
  const missing = [...runtimeList].filter((name) => !foundNames.has(name));
  if (missing.length > 0) {
    console.error(`scripts/run-tests.mjs lists runtime test files that do not exist (renamed or removed?): ${missing.join(', ')}`);
    process.exit(1);
  }
}
const files = found
  // Match below dist/test/, so a checkout folder name never matches every file.
  .filter((file) => filter.length === 0 || filter.some((part) => relative(file).includes(part)))
  .filter((file) => !runtimeOnly || runtimeList.has(relative(file)))
  .sort();
if (files.length === 0) {
  console.error(`no test files found under ${root}${filter.length ? ` matching ${filter.join(', ')}` : ''}`);
  process.exit(1);
}
if (runtimeOnly) console.log(`runtime checks only (${Object.keys(runtimeFiles).join('; ')}): ${files.length} test files`);
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
