import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../../src/config/load-config.js';
import { packageRoot } from '../../src/config/package-root.js';
import { configSchema } from '../../src/config/schema.js';
import { SpillwayError } from '../../src/errors.js';
import { isJsonObject } from '../../src/util/is-json-object.js';
import type { AfterHook } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

// A configuration file holds only what it changes: every key it leaves out, at any depth,
// comes from config/default.json. These tests write real files and load them.

type Json = Record<string, unknown>;

const defaultsFile = JSON.parse(readFileSync(path.join(packageRoot, 'config', 'default.json'), 'utf8')) as Json;
const defaults = () => loadConfig({ env: {} }) as unknown as Json;

async function loadFile(t: AfterHook, content: unknown): Promise<{ config: Json; dir: string }> {
  const dir = await tempDir(t, 'spillway-partial-');
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, JSON.stringify(content));
  return { config: loadConfig({ file, env: {} }) as unknown as Json, dir };
}

/** `{a: {b: value}}` for the key path ['a', 'b']. */
function nest(keys: readonly string[], value: unknown): Json {
  return keys.reduceRight<Json>((inner, key) => ({ [key]: inner }), value as Json);
}

function setAt(target: Json, keys: readonly string[], value: unknown): Json {
  const copy = structuredClone(target);
  let holder = copy;
  for (const key of keys.slice(0, -1)) holder = holder[key] as Json;
  holder[keys.at(-1) as string] = value;
  return copy;
}

/** Every key path of default.json whose value is an object (`sandbox`, `server.auth`, `coordination.jobs`, `upstreams`, …). */
function objectPaths(value: unknown, prefix: string[] = []): string[][] {
  if (!isJsonObject(value)) return [];
  return [prefix, ...Object.entries(value).flatMap(([key, member]) => objectPaths(member, [...prefix, key]))].filter((keys) => keys.length > 0);
}

/** The schema of a key path, through plain objects only (undefined under a oneOf or a record). */
function schemaAt(keys: readonly string[]): Json | undefined {
  let node: unknown = configSchema;
  for (const key of keys) {
    const properties = isJsonObject(node) ? node.properties : undefined;
    node = isJsonObject(properties) ? properties[key] : undefined;
  }
  return isJsonObject(node) ? node : undefined;
}

/** The first number or boolean under a top-level key, with another value its schema allows. */
function oneChangedLeaf(top: string): { keys: string[]; value: unknown } | undefined {
  const walk = (value: unknown, keys: string[]): { keys: string[]; value: unknown } | undefined => {
    if (isJsonObject(value)) {
      for (const [key, member] of Object.entries(value)) {
        const found = walk(member, [...keys, key]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    const schema = schemaAt(keys);
    if (schema === undefined) return undefined;
    if (typeof value === 'boolean') return { keys, value: !value };
    if (typeof value !== 'number') return undefined;
    const maximum = typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
    return { keys, value: value + 1 <= maximum ? value + 1 : value - 1 };
  };
  return walk(defaultsFile[top], [top]);
}

test('config/default.json has the top-level keys these tests walk', () => {
  assert.ok(Object.keys(defaultsFile).length >= 20);
  assert.ok(objectPaths(defaultsFile).some((keys) => keys.join('.') === 'coordination.jobs'));
});

for (const keys of objectPaths(defaultsFile)) {
  test(`a config file {"${keys.join('": {"')}": {}} loads and equals the defaults`, async (t) => {
    const { config } = await loadFile(t, nest(keys, {}));
    assert.deepEqual(config, defaults());
  });
}

for (const top of Object.keys(defaultsFile)) {
  const change = oneChangedLeaf(top);
  if (change === undefined) continue;
  test(`a config file setting only ${change.keys.join('.')} keeps every other default (${top})`, async (t) => {
    const { config } = await loadFile(t, nest(change.keys, change.value));
    assert.deepEqual(config, setAt(defaults(), change.keys, change.value));
  });
}

test('a config file setting only sandbox.root or data.dir resolves it against its folder and keeps the other default', async (t) => {
  const sandbox = await loadFile(t, { sandbox: { root: 'my-sandbox' } });
  assert.deepEqual(sandbox.config, setAt(defaults(), ['sandbox', 'root'], path.join(sandbox.dir, 'my-sandbox')));
  const data = await loadFile(t, { data: { dir: 'my-data' } });
  assert.deepEqual(data.config, setAt(defaults(), ['data', 'dir'], path.join(data.dir, 'my-data')));
  const level = await loadFile(t, { log: { level: 'debug' } });
  assert.deepEqual(level.config, setAt(defaults(), ['log', 'level'], 'debug'));
});

test('a misspelled key is one problem that names it and the key it probably meant', async (t) => {
  const cases: [unknown, RegExp][] = [
    [{ sandbox: { rot: 'x' } }, /^unknown key "sandbox\.rot": did you mean "sandbox\.root"\?$/],
    [{ sandbx: { root: 'x' } }, /^unknown key "sandbx": did you mean "sandbox"\?$/],
    [{ data: { dri: 'x' } }, /^unknown key "data\.dri": did you mean "data\.dir"\?$/],
    [{ server: { prot: 9000 } }, /^unknown key "server\.prot": did you mean "server\.port"\?$/],
    // Inside a choice of shapes (oneOf), only the shape the value names speaks.
    [{ server: { auth: { mode: 'bearer', tokns: [] } } }, /^unknown key "server\.auth\.tokns": did you mean "server\.auth\.tokens"\?$/],
    [{ sql: { source: { type: 'sqlite', fil: 'shop.db' } } }, /^unknown key "sql\.source\.fil": did you mean "sql\.source\.file"\?$/],
    [{ upstreams: { github: { comand: 'github-mcp' } } }, /^unknown key "upstreams\.github\.comand": did you mean "upstreams\.github\.command"\?$/],
    [{ server: { auth: { mode: 'bearr' } } }, /^server\.auth\.mode: must be one of "none", "bearer", "oauth"$/],
    [{ server: { auth: { mode: 'bearer' } } }, /^server\.auth\.tokens: is required$/],
    // Nothing close: the keys allowed there instead.
    [{ server: { zzzzzz: 1 } }, /^unknown key "server\.zzzzzz"; allowed here: host, port, /],
  ];
  for (const [content, expected] of cases) {
    const dir = await tempDir(t, 'spillway-typo-');
    const file = path.join(dir, 'spillway.json');
    await writeFile(file, JSON.stringify(content));
    assert.throws(
      () => loadConfig({ file, env: {} }),
      (error: unknown) => {
        assert.ok(SpillwayError.is(error));
        assert.equal(error.code, 'CONFIG_INVALID');
        const problems = error.details?.errors as string[];
        assert.equal(problems.length, 1, problems.join('\n'));
        assert.match(problems[0] as string, expected);
        return true;
      },
    );
  }
});

/** A copy of `value` with any of its keys left out, at every depth (objects emptied included). */
function pruned(value: unknown): fc.Arbitrary<unknown> {
  if (!isJsonObject(value)) return fc.constant(value);
  const members = Object.entries(value).map(([key, member]) =>
    fc.option(
      pruned(member).map((kept) => [key, kept] as const),
      { nil: undefined },
    ),
  );
  return fc.tuple(...members).map((entries) => Object.fromEntries(entries.filter((entry) => entry !== undefined)));
}

test('property: any part of the defaults, laid over them, gives the defaults', () => {
  const expected = defaults();
  fc.assert(
    fc.property(pruned(defaultsFile), (layer) => {
      assert.deepEqual(loadConfig({ env: {}, overrides: layer, cwd: packageRoot }), expected);
    }),
    { numRuns: 200 },
  );
});
