import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';

// `npm ci && npm start` on a fresh clone reaches the banner in seconds because `npm ci`
// already compiled: its `prepare` script runs the same incremental build that `npm start`
// runs first, so the start's build finds nothing to do (~0.5 s instead of ~10 s of tsc).

const packageJson = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const buildConfig = readFileSync(path.join(packageRoot, 'tsconfig.build.json'), 'utf8');

test('npm ci builds (prepare) what npm start builds first, incrementally, so the first start compiles nothing', () => {
  const { prepare, start, build } = packageJson.scripts;
  assert.match(prepare ?? '', /^npm run build\b/, 'prepare runs the build');
  assert.match(start ?? '', /^npm run build\b/, 'start builds first');
  assert.match(build ?? '', /tsc -b tsconfig\.build\.json/, 'the build is tsc in build mode');
  assert.match(buildConfig, /"composite": true/);
  assert.match(buildConfig, /"tsBuildInfoFile": "dist\/build\.tsbuildinfo"/);
});
