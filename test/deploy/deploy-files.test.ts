import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import yaml from 'js-yaml';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/load-config.js';
import { packageRoot } from '../../src/config/package-root.js';
import { tempDir } from '../helpers/temp-dir.js';

const deployDir = path.join(packageRoot, 'deploy');
const read = (relative: string) => readFileSync(path.join(deployDir, relative), 'utf8');

type Doc = Record<string, unknown> & { kind?: string; metadata?: { name?: string } };
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  readinessProbe?: { httpGet?: { path?: string } };
  livenessProbe?: { httpGet?: { path?: string } };
  envFrom?: { secretRef?: { name: string } }[];
}

const k8sDocs: Doc[] = readdirSync(path.join(deployDir, 'k8s'))
  .filter((name) => name.endsWith('.yaml'))
  .flatMap((name) => yaml.loadAll(read(`k8s/${name}`)) as Doc[]);

function byKind(kind: string): Doc[] {
  return k8sDocs.filter((doc) => doc.kind === kind);
}

function named(kind: string, name: string): Doc {
  const doc = byKind(kind).find((candidate) => candidate.metadata?.name === name);
  assert.ok(doc !== undefined, `deploy/k8s has a ${kind} named ${name}`);
  return doc;
}

function containersOf(doc: Doc): Container[] {
  const spec = doc.spec as { template?: { spec: { containers: Container[] } }; jobTemplate?: { spec: { template: { spec: { containers: Container[] } } } } };
  return (spec.template ?? spec.jobTemplate?.spec.template)?.spec.containers ?? [];
}

/** The usage text of a real `spillway` verb (fails when the verb does not exist). */
async function usageOf(verb: string): Promise<string> {
  let out = '';
  const code = await main([verb, '--help'], { out: (text: string) => void (out += text), err: () => undefined, interactive: false });
  assert.equal(code, 0, `spillway ${verb} is a real command`);
  return out;
}

/** Checks that `argv` (after the program name) is a real verb with flags its usage lists. */
async function assertRealCommandLine(argv: readonly string[], where: string): Promise<void> {
  const [verb, ...rest] = argv;
  assert.ok(verb !== undefined, `${where}: a verb`);
  const usage = await usageOf(verb);
  for (const flag of rest.filter((arg) => arg.startsWith('--'))) {
    assert.match(usage, new RegExp(`\\[${flag}[ \\]]`), `${where}: spillway ${verb} takes ${flag}`);
  }
}

/** Validates a configuration file's text against the schema (the loader spillway uses). */
async function assertValidConfig(t: import('node:test').TestContext, text: string): Promise<void> {
  const dir = await tempDir(t);
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, text);
  const config = loadConfig({ file, env: {} });
  assert.equal(config.server.auth.mode, 'bearer', 'a fleet on a non-loopback address needs auth');
  assert.ok(config.coordination.redis !== undefined, 'the replicas share a Redis');
}

function execStartsOf(unit: string): string[][] {
  return [...unit.matchAll(/^ExecStart=(.+)$/gm)].map((match) => (match[1] as string).trim().split(/\s+/));
}

test('deploy/k8s: every manifest parses, and the kinds a fleet needs are there', () => {
  assert.ok(k8sDocs.length >= 10);
  for (const doc of k8sDocs) assert.equal(typeof doc.kind, 'string');
  named('Deployment', 'spillway');
  named('Deployment', 'spillway-redis');
  named('Deployment', 'spillway-haproxy');
  named('Service', 'spillway');
  named('CronJob', 'spillway-cleanup');
  named('Secret', 'spillway-tokens');
  const pvc = named('PersistentVolumeClaim', 'spillway-sandbox');
  assert.deepEqual((pvc.spec as { accessModes: string[] }).accessModes, ['ReadWriteMany']);
});

test('deploy/k8s: the replicas run `spillway serve` with real flags, probe /readyz and /healthz, and read the bearer token from the Secret', async () => {
  const deployment = named('Deployment', 'spillway');
  const [container] = containersOf(deployment);
  assert.ok(container !== undefined);
  assert.deepEqual(container.command, ['spillway']);
  assert.equal(container.args?.[0], 'serve');
  await assertRealCommandLine(container.args ?? [], 'Deployment spillway');
  assert.equal(container.readinessProbe?.httpGet?.path, '/readyz');
  assert.equal(container.livenessProbe?.httpGet?.path, '/healthz');
  assert.ok(container.envFrom?.some((source) => source.secretRef?.name === 'spillway-tokens'));
  const secret = named('Secret', 'spillway-tokens');
  const config = JSON.parse((named('ConfigMap', 'spillway-config').data as Record<string, string>)['spillway.json'] as string) as {
    server: { auth: { tokens: { secretEnv: string }[] } };
  };
  for (const token of config.server.auth.tokens)
    assert.ok(token.secretEnv in (secret.stringData as Record<string, string>), `the Secret holds ${token.secretEnv}`);
});

test('deploy/k8s: the CronJob runs `spillway cleanup` with real flags', async () => {
  const [container] = containersOf(named('CronJob', 'spillway-cleanup'));
  assert.ok(container !== undefined);
  assert.deepEqual(container.command, ['spillway']);
  assert.equal(container.args?.[0], 'cleanup');
  await assertRealCommandLine(container.args ?? [], 'CronJob spillway-cleanup');
});

test('deploy/k8s and deploy/systemd: the configuration files use keys of the schema, with valid values', async (t) => {
  await assertValidConfig(t, (named('ConfigMap', 'spillway-config').data as Record<string, string>)['spillway.json'] as string);
  await assertValidConfig(t, read('systemd/spillway.json'));
});

test('deploy/systemd: the units run real verbs and flags, harden the service, and the timer fires every six hours', async () => {
  const serve = read('systemd/spillway.service');
  const cleanup = read('systemd/spillway-cleanup.service');
  for (const [unit, verb] of [
    [serve, 'serve'],
    [cleanup, 'cleanup'],
  ] as const) {
    const [execStart] = execStartsOf(unit);
    assert.ok(execStart !== undefined);
    assert.equal(path.basename(execStart[0] as string), 'spillway');
    assert.equal(execStart[1], verb);
    await assertRealCommandLine(execStart.slice(1), `spillway ${verb} unit`);
    for (const line of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'UMask=0077', 'EnvironmentFile=/etc/spillway/spillway.env']) {
      assert.ok(unit.includes(`\n${line}\n`), `${verb} unit has ${line}`);
    }
    assert.match(unit, /^ReadWritePaths=.*\/srv\/spillway\/sandbox/m);
  }
  // Exit 75 is "another sweep holds the lock": not a failure of the timer's run.
  assert.match(cleanup, /^SuccessExitStatus=75$/m);
  assert.match(read('systemd/spillway-cleanup.timer'), /^OnCalendar=00\/6:00$/m);
  assert.match(read('systemd/spillway.env'), /^SPILLWAY_TOKEN_AGENTS=/m);
});

test('deploy/haproxy and the in-cluster HAProxy route by Mcp-Session-Id learned from the response, and check /readyz', () => {
  const inCluster = (named('ConfigMap', 'spillway-haproxy').data as Record<string, string>)['haproxy.cfg'] as string;
  for (const cfg of [read('haproxy/haproxy.cfg'), inCluster]) {
    assert.match(cfg, /^\s+stick on req\.hdr\(Mcp-Session-Id\)$/m);
    assert.match(cfg, /^\s+stick store-response res\.hdr\(Mcp-Session-Id\)$/m);
    assert.match(cfg, /^\s+http-check send meth GET uri \/readyz$/m);
    assert.match(cfg, /^\s+mode http$/m);
    assert.match(cfg, /^\s+timeout server 1h$/m);
  }
});

function haproxyMissing(): string | undefined {
  const found = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return found.error === undefined && found.status === 0 ? undefined : 'haproxy is not installed (.ci/run installs the Debian package haproxy)';
}

test('haproxy -c accepts deploy/haproxy/haproxy.cfg and the in-cluster configuration', { skip: haproxyMissing() }, async (t) => {
  const dir = await tempDir(t);
  const inCluster = path.join(dir, 'in-cluster.cfg');
  await writeFile(inCluster, (named('ConfigMap', 'spillway-haproxy').data as Record<string, string>)['haproxy.cfg'] as string);
  for (const file of [path.join(deployDir, 'haproxy/haproxy.cfg'), inCluster]) {
    const checked = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    assert.equal(checked.status, 0, `${file}:\n${checked.stdout}${checked.stderr}`);
  }
});

function systemdAnalyzeMissing(): string | undefined {
  const found = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  return found.error === undefined && found.status === 0 ? undefined : 'systemd-analyze is not installed';
}

test('systemd-analyze verify accepts the units (except that the spillway binary is not installed here)', { skip: systemdAnalyzeMissing() }, () => {
  const units = ['spillway.service', 'spillway-cleanup.service', 'spillway-cleanup.timer'].map((name) => path.join(deployDir, 'systemd', name));
  const verified = spawnSync('systemd-analyze', ['verify', ...units], { encoding: 'utf8' });
  const problems = `${verified.stdout}${verified.stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '')
    // The ExecStart binary exists only where spillway is installed (npm install -g).
    .filter((line) => !/Command \/usr\/local\/bin\/spillway is not executable/.test(line));
  assert.deepEqual(problems, []);
});
