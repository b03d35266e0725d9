#!/usr/bin/env node
// Runs the official MCP conformance suite's server scenarios against two real servers and
// compares each scenario's outcome with test/conformance/expected.json:
//   serve     `spillway serve` as shipped (spillway's own tools, prompts and resources only);
//   fixtures  a spillway host with the suite's reference fixtures (test_tool_with_logging,
//             test_simple_prompt, test://static-text, ...) registered through the embedding API
//             (dist/test/conformance/fixture-server.js), which the optional scenarios call by name.
//
//   node scripts/conformance.mjs --suite-prefix DIR [--suite-node NODE]
//
// DIR is an npm prefix holding @modelcontextprotocol/conformance (installed there, never into
// the repo's node_modules); NODE runs the suite (it needs Node 22 or newer; default: this node).
// spillway itself runs on the node that runs this script, from the build in dist/.
//
// Exit 1 when a scenario expected to pass fails (or a scenario expected.json does not know
// fails); a scenario expected to fail that now passes is printed, so expected.json can be
// updated, and does not fail the run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const expectedFile = path.join(repo, 'test', 'conformance', 'expected.json');
const startDeadlineMs = 60_000;

function option(name) {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

const prefix = option('--suite-prefix') ?? fail('--suite-prefix DIR is required (an npm prefix holding @modelcontextprotocol/conformance)');
const suiteNode = option('--suite-node') ?? process.execPath;
const suitePackage = path.join(prefix, 'node_modules', '@modelcontextprotocol', 'conformance');
const suiteVersion = JSON.parse(readFileSync(path.join(suitePackage, 'package.json'), 'utf8')).version;
const suiteNodeVersion = spawnSync(suiteNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
if (Number(/^v(\d+)/.exec(suiteNodeVersion)?.[1] ?? 0) < 22) fail(`the suite needs Node 22 or newer; ${suiteNode} is ${suiteNodeVersion || 'not runnable'}`);
const expected = JSON.parse(readFileSync(expectedFile, 'utf8'));
if (expected.package !== `@modelcontextprotocol/conformance@${suiteVersion}`) {
  fail(`expected.json is for ${expected.package}, the installed suite is ${suiteVersion}`);
}

const targets = {
  serve: (configFile) => [path.join(repo, 'bin', 'spillway.js'), 'serve', '--config', configFile],
  fixtures: (configFile) => [path.join(repo, 'dist', 'test', 'conformance', 'fixture-server.js'), '--config', configFile],
};

/** Starts a target on a free loopback port (port 0) and resolves with its MCP URL, read from the banner it prints. */
function startServer(target, configFile) {
  const child = spawn(process.execPath, targets[target](configFile), {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`${target} printed no URL within ${startDeadlineMs / 1000} s\n${stderr}`)), startDeadlineMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /serving MCP \(Streamable HTTP\) at (http:\/\/\S+)/.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${target} exited (${code}) before listening\n${stderr}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, stop };
}

/** Each scenario's checks, from the suite's results folder (one `server-<scenario>-<time>/checks.json` per scenario). */
function readOutcomes(resultsDir) {
  const outcomes = new Map();
  for (const name of readdirSync(resultsDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(name)?.[1];
    if (scenario === undefined) continue;
    const checks = JSON.parse(readFileSync(path.join(resultsDir, name, 'checks.json'), 'utf8'));
    const failures = checks.filter((check) => check.status === 'FAILURE');
    const passed = failures.length === 0 && checks.some((check) => check.status === 'SUCCESS');
    outcomes.set(scenario, { outcome: passed ? 'pass' : 'fail', failures: failures.map((check) => `${check.id}: ${check.errorMessage ?? check.description}`) });
  }
  return outcomes;
}

/** Runs the suite against one target in a fresh sandbox; resolves with each scenario's outcome. */
async function runTarget(target) {
  const work = mkdtempSync(path.join(tmpdir(), `spillway-conformance-${target}-`));
  let server;
  try {
    const configFile = path.join(work, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        sandbox: { root: path.join(work, 'sandbox') },
        data: { dir: path.join(work, 'data') },
        server: { host: '127.0.0.1', port: 0 },
        log: { level: 'warn' },
      }),
    );
    server = startServer(target, configFile);
    const url = await server.url;
    const resultsDir = path.join(work, 'results');
    console.log(`\n${target}: conformance ${suiteVersion} (on Node ${suiteNodeVersion}) against ${url}`);
    const run = spawnSync(suiteNode, [path.join(suitePackage, 'dist', 'index.js'), 'server', '--url', url, '--output-dir', resultsDir], {
      cwd: work,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (run.error !== undefined) throw run.error;
    let outcomes;
    try {
      outcomes = readOutcomes(resultsDir);
    } catch (error) {
      throw new Error(`the suite left no results (${error.message}); its output:\n${run.stdout}\n${run.stderr}`);
    }
    if (outcomes.size === 0) throw new Error(`the suite ran no scenario; its output:\n${run.stdout}\n${run.stderr}`);
    return outcomes;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

/** Prints one target's outcomes against expected.json; returns the scenarios that failed unexpectedly. */
function compare(target, outcomes) {
  const regressions = [];
  const newlyPassing = [];
  for (const [scenario, { outcome, failures }] of [...outcomes].sort(([a], [b]) => a.localeCompare(b))) {
    const entry = Object.hasOwn(expected.scenarios, scenario) ? expected.scenarios[scenario] : undefined;
    const want = entry?.[target];
    const mark = outcome === 'pass' ? '✓' : '✗';
    if (outcome === 'pass') {
      console.log(`${mark} ${scenario}${want === 'fail' ? '  (expected to fail; now passes)' : ''}`);
      if (want !== 'pass') newlyPassing.push(scenario);
    } else if (want === 'fail') {
      console.log(`${mark} ${scenario}  (expected: ${entry.reason})`);
    } else {
      console.log(`${mark} ${scenario}  (${want === 'pass' ? 'expected to pass' : 'not in expected.json'})`);
      for (const failure of failures) console.log(`    ${failure}`);
      regressions.push(scenario);
    }
  }
  const missing = Object.keys(expected.scenarios).filter((scenario) => !outcomes.has(scenario));
  if (missing.length > 0) console.log(`not run by this suite (remove from expected.json?): ${missing.join(', ')}`);
  if (newlyPassing.length > 0) console.log(`newly passing, mark them "${target}": "pass" in test/conformance/expected.json: ${newlyPassing.join(', ')}`);
  const passes = [...outcomes.values()].filter(({ outcome }) => outcome === 'pass').length;
  console.log(`${target}: ${passes} of ${outcomes.size} scenarios pass`);
  return regressions;
}

const started = Date.now();
let status = 0;
try {
  for (const target of Object.keys(targets)) {
    const regressions = compare(target, await runTarget(target));
    if (regressions.length > 0) {
      console.error(`✖ ${target}: unexpected failures: ${regressions.join(', ')}`);
      status = 1;
    }
  }
  console.log(`conformance: ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  status = 1;
}
process.exit(status);
