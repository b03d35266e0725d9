#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's test runner.
// Node 20's `node --test` takes no globs, so the files are found here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve('dist/test');
const filter = process.argv.slice(2);

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'fixtures' ? [] : find(full);
    return name.endsWith('.test.js') ? [full] : [];
  });
}

const files = find(root)
  // Match below dist/test/, so a checkout folder name never matches every file.
  .filter((file) => filter.length === 0 || filter.some((part) => path.relative(root, file).includes(part)))
  .sort();
if (files.length === 0) {
  console.error(`no test files found under ${root}${filter.length ? ` matching ${filter.join(', ')}` : ''}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=300000', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
