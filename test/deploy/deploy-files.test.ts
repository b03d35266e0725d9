import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import yaml from 'js-yaml';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/load-config.js';
import { downloadSettings } from '../../src/downloads/download-settings.js';
import { packageRoot } from '../../src/config/package-root.js';
import type { Config } from '../../src/config/schema.js';
import { tempDir } from '../helpers/temp-dir.js';

const deployDir = path.join(packageRoot, 'deploy');
const read = (relative: string) => readFileSync(path.join(deployDir, relative), 'utf8');

type Doc = Record<string, unknown> & { kind?: string; metadata?: { name?: string } };
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  ports?: unknown[];
  readinessProbe?: { httpGet?: { path?: string } };
  livenessProbe?: { httpGet?: { path?: string } };
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { secretRef?: { name: string } }[];
  securityContext?: unknown;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  resources?: { requests?: { cpu?: string; memory?: string } };
}
interface PodSpec {
  securityContext?: unknown;
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string }; configMap?: { name: string } }[];
}
interface DeploymentSpec {
  replicas?: number;
  strategy?: { rollingUpdate?: { maxUnavailable?: number | string } };
  template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
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

/** Loads a configuration file's text as spillway does (schema defaults below it, validated). */
async function loadConfigText(t: import('node:test').TestContext, text: string): Promise<Config> {
  const dir = await tempDir(t);
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, text);
  return loadConfig({ file, env: {} });
}

/** Validates a configuration file's text against the schema (the loader spillway uses). */
async function assertValidConfig(t: import('node:test').TestContext, text: string): Promise<void> {
  const config = await loadConfigText(t, text);
  assert.equal(config.server.auth.mode, 'bearer', 'a fleet on a non-loopback address needs auth');
  assert.ok(config.coordination.redis !== undefined, 'the replicas share a Redis');
  assert.equal(config.coordination.jobs.onReplicas, false, 'dedicated workers build every file; the replicas only serve');
  assert.ok(config.server.publicUrl !== undefined, 'download cards carry signed links (server.publicUrl)');
  assert.ok(config.server.downloads.signingKeyEnv !== undefined, 'the signing key comes from the environment, the same on every replica');
}

/** The signing key's variable must be set as serve requires: downloadSettings is what the replica checks at start. */
function assertServeAcceptsKey(config: Config, env: Record<string, string>, where: string): void {
  const name = config.server.downloads.signingKeyEnv;
  assert.ok(name !== undefined && name in env, `${where} sets ${name}`);
  const settings = downloadSettings(config, env);
  assert.equal(settings.publicUrl, config.server.publicUrl);
  assert.ok(settings.key !== undefined);
}

const configMapText = () => (named('ConfigMap', 'spillway-config').data as Record<string, string>)['spillway.json'] as string;

function deploymentSpec(name: string): DeploymentSpec {
  return named('Deployment', name).spec as DeploymentSpec;
}

/** A Kubernetes CPU quantity ("2", "1.5", "500m") in cores. */
function cpuCores(quantity: string | undefined): number {
  assert.ok(quantity !== undefined, 'a CPU request');
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);
}

/** The values of `Key=` lines in a unit, in order. */
function unitValues(unit: string, key: string): string[] {
  return [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1] as string);
}

/** A systemd time span in seconds: plain seconds or one unit (`30`, `90s`, `11min`). */
function unitSeconds(value: string | undefined): number {
  const match = /^(\d+)(s|min)?$/.exec(value ?? '');
  assert.ok(match !== null, `a time span systemd reads: ${value}`);
  return Number(match[1]) * (match[2] === 'min' ? 60 : 1);
}

function execStartsOf(unit: string): string[][] {
  return [...unit.matchAll(/^ExecStart=(.+)$/gm)].map((match) => (match[1] as string).trim().split(/\s+/));
}

test('deploy/k8s: every manifest parses, and the kinds a fleet needs are there', () => {
  assert.ok(k8sDocs.length >= 10);
  for (const doc of k8sDocs) assert.equal(typeof doc.kind, 'string');
  named('Deployment', 'spillway');
  named('Deployment', 'spillway-worker');
  named('Deployment', 'spillway-redis');
  named('Deployment', 'spillway-haproxy');
  named('Service', 'spillway');
  named('CronJob', 'spillway-cleanup');
  named('Secret', 'spillway-tokens');
  // BullMQ keeps the job queue in Redis: a Redis that evicts keys would drop jobs.
  const [redis] = containersOf(named('Deployment', 'spillway-redis'));
  assert.match((redis?.args ?? []).join(' '), /--maxmemory-policy noeviction/);
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

test('deploy/k8s: every replica reads the download signing key the configuration names from one Secret', async (t) => {
  const config = await loadConfigText(t, configMapText());
  const [container] = containersOf(named('Deployment', 'spillway'));
  const entry = container?.env?.find((variable) => variable.name === config.server.downloads.signingKeyEnv);
  const ref = entry?.valueFrom?.secretKeyRef;
  assert.ok(ref !== undefined, 'the key comes from a Secret, not a value in the manifest');
  const value = (named('Secret', ref.name).stringData as Record<string, string>)[ref.key];
  assert.ok(value !== undefined, `the Secret ${ref.name} holds ${ref.key}`);
  assertServeAcceptsKey(config, { [entry?.name ?? '']: value }, 'Deployment spillway');
});

test('deploy/k8s: the CronJob runs `spillway cleanup` with real flags', async () => {
  const [container] = containersOf(named('CronJob', 'spillway-cleanup'));
  assert.ok(container !== undefined);
  assert.deepEqual(container.command, ['spillway']);
  assert.equal(container.args?.[0], 'cleanup');
  await assertRealCommandLine(container.args ?? [], 'CronJob spillway-cleanup');
});

test("deploy/k8s: the workers share the replicas' claim, configuration, Secret and uid, have no Service, a CPU per thread and time to finish an export", async (t) => {
  const workers = deploymentSpec('spillway-worker');
  const replicas = deploymentSpec('spillway');
  assert.equal(workers.replicas, 2);
  // With coordination.jobs.onReplicas false, a moment without workers answers every export with BUSY.
  assert.equal(workers.strategy?.rollingUpdate?.maxUnavailable, 0);
  const pod = workers.template.spec;
  const [worker] = pod.containers;
  const [replica] = replicas.template.spec.containers;
  assert.ok(worker !== undefined && replica !== undefined);
  assert.deepEqual(worker.command, ['spillway']);
  assert.equal(worker.args?.[0], 'worker');
  assert.deepEqual(worker.args?.slice(1), replica.args?.slice(1), 'the same --config as the replicas');
  assert.ok(worker.envFrom?.some((source) => source.secretRef?.name === 'spillway-tokens'));
  assert.deepEqual(pod.securityContext, replicas.template.spec.securityContext, 'the same uid and fsGroup: files are 0600');
  assert.deepEqual(worker.securityContext, replica.securityContext);
  // A worker listens on nothing: no port, no probe, and no Service selects it (the headless `spillway` one would
  // hand a worker's address to HAProxy).
  assert.equal(worker.ports, undefined);
  assert.equal(worker.readinessProbe, undefined);
  const labels = workers.template.metadata.labels;
  for (const service of byKind('Service')) {
    const selector = (service.spec as { selector?: Record<string, string> }).selector ?? {};
    assert.ok(!Object.entries(selector).every(([key, value]) => labels[key] === value), `Service ${service.metadata?.name} does not select the workers`);
  }
  const volumes = new Map(pod.volumes?.map((volume) => [volume.name, volume]));
  const mounts = new Map(worker.volumeMounts?.map((mount) => [mount.mountPath, mount.name]));
  const config = await loadConfigText(t, configMapText());
  assert.equal(volumes.get(mounts.get(config.sandbox.root) ?? '')?.persistentVolumeClaim?.claimName, 'spillway-sandbox', 'the sandbox is the shared claim');
  assert.equal(volumes.get(mounts.get('/etc/spillway') ?? '')?.configMap?.name, 'spillway-config');
  // One CPU requested per thread: in a container workers.poolSize 0 would mean every core of the node.
  assert.ok(config.workers.poolSize > 0, 'workers.poolSize is set for the pods');
  assert.equal(cpuCores(worker.resources?.requests?.cpu), config.workers.poolSize);
  // SIGTERM lets a running build finish: no build runs longer than workers.taskTimeoutMs.
  assert.ok((pod.terminationGracePeriodSeconds ?? 30) * 1000 > config.workers.taskTimeoutMs);
});

test('deploy/k8s and deploy/systemd: the workers run `spillway worker` with real flags', async () => {
  const [container] = containersOf(named('Deployment', 'spillway-worker'));
  assert.ok(container !== undefined);
  await assertRealCommandLine(container.args ?? [], 'Deployment spillway-worker');
  const [execStart] = execStartsOf(read('systemd/spillway-worker.service'));
  assert.ok(execStart !== undefined);
  await assertRealCommandLine(execStart.slice(1), 'spillway worker unit');
});

test('deploy/k8s and deploy/systemd: the configuration files use keys of the schema, with valid values', async (t) => {
  await assertValidConfig(t, configMapText());
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

test('deploy/systemd: the environment file every replica reads holds the download signing key the configuration names', async (t) => {
  const config = await loadConfigText(t, read('systemd/spillway.json'));
  const env = Object.fromEntries(
    read('systemd/spillway.env')
      .split('\n')
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  assertServeAcceptsKey(config, env, 'systemd/spillway.env');
});

test('deploy/systemd: the worker unit runs `spillway worker` like the replica, hardened the same, writing only the sandbox, and waits out a running export on stop', async (t) => {
  const serve = read('systemd/spillway.service');
  const worker = read('systemd/spillway-worker.service');
  const [serveExec] = execStartsOf(serve);
  const [workerExec] = execStartsOf(worker);
  assert.ok(serveExec !== undefined && workerExec !== undefined);
  assert.equal(workerExec[0], serveExec[0]);
  assert.equal(workerExec[1], 'worker');
  assert.deepEqual(workerExec.slice(2), serveExec.slice(2), 'the same --config as the replica');
  const sameAsReplica = ['User', 'Group', 'Environment', 'EnvironmentFile', 'RequiresMountsFor', 'KillSignal', 'UMask', 'LimitNOFILE'];
  const hardening = ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'ProtectKernelTunables', 'ProtectKernelModules'];
  const more = ['ProtectControlGroups', 'RestrictSUIDSGID', 'LockPersonality', 'RestrictNamespaces', 'RestrictAddressFamilies', 'CapabilityBoundingSet'];
  for (const key of [...sameAsReplica, ...hardening, ...more]) {
    assert.notDeepEqual(unitValues(serve, key), [], `spillway.service sets ${key}`);
    assert.deepEqual(unitValues(worker, key), unitValues(serve, key), `${key} as in spillway.service`);
  }
  assert.deepEqual(unitValues(worker, 'KillSignal'), ['SIGTERM']);
  assert.deepEqual(unitValues(worker, 'ReadWritePaths'), ['/srv/spillway/sandbox'], 'writable: the sandbox only');
  const config = await loadConfigText(t, read('systemd/spillway.json'));
  assert.equal(unitValues(worker, 'RequiresMountsFor')[0], config.sandbox.root);
  assert.ok(unitSeconds(unitValues(worker, 'TimeoutStopSec')[0]) * 1000 > config.workers.taskTimeoutMs, 'a running build may finish before SIGKILL');
  // Exit 2 is a configuration without coordination.redis: restarting cannot fix it.
  assert.deepEqual(unitValues(worker, 'RestartPreventExitStatus'), ['2']);
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

test('docs/deploy.md names every file in deploy/ (its table of the files)', () => {
  const doc = readFileSync(path.join(packageRoot, 'docs', 'deploy.md'), 'utf8');
  const files = readdirSync(deployDir).flatMap((folder) => readdirSync(path.join(deployDir, folder)));
  assert.ok(files.length >= 15);
  for (const name of files) assert.ok(doc.includes(`${name}\``), `docs/deploy.md names ${name}`);
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
  const units = ['spillway.service', 'spillway-worker.service', 'spillway-cleanup.service', 'spillway-cleanup.timer'].map((name) =>
    path.join(deployDir, 'systemd', name),
  );
  const verified = spawnSync('systemd-analyze', ['verify', ...units], { encoding: 'utf8' });
  const problems = `${verified.stdout}${verified.stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '')
    // The ExecStart binary exists only where spillway is installed (npm install -g).
    .filter((line) => !/Command \/usr\/local\/bin\/spillway is not executable/.test(line));
  assert.deepEqual(problems, []);
});
