import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { checkOptions, prebuiltConfigCheck } from '../../src/config/config-check.js';
import { configSchema } from '../../src/config/schema.js';
import { defaultsOf } from '../../src/config/schema-defaults.js';
import { isJsonObject } from '../../src/util/is-json-object.js';

// `npm run build:test` (which the test command runs first) writes the build-time check.
const prebuilt = prebuiltConfigCheck(configSchema);
const compiledNow = new Ajv(checkOptions).compile(configSchema);

test('the build compiles the configuration check for the schema it built, and refuses it for any other schema', () => {
  assert.ok(prebuilt, 'dist/src/config/config-check.cjs is missing or was compiled from another schema');
  assert.equal(prebuiltConfigCheck({ ...configSchema, title: 'another schema' }), undefined);
  assert.equal(prebuilt(defaultsOf(configSchema)), true);
});

/** Every path to a value in a JSON object, so a mutation can land anywhere in the configuration. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (!isJsonObject(value)) return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([key, member]) => paths(member, [...prefix, key]))];
}

function withValueAt(root: Record<string, unknown>, at: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(root);
  let holder: Record<string, unknown> = copy;
  for (const key of at.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
  const last = at.at(-1);
  if (last === undefined) return copy;
  if (value === undefined) delete holder[last];
  else holder[last] = value;
  return copy;
}

test('the build-time check accepts and refuses exactly what a check compiled now does, wherever a value changes (property)', () => {
  assert.ok(prebuilt);
  const defaults = defaultsOf(configSchema) as Record<string, unknown>;
  const everyPath = paths(defaults).filter((at) => at.length > 0);
  const replacement = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constantFrom(-1, 0, 1.5, 70000, '', 'x', true, null));
  fc.assert(
    fc.property(fc.constantFrom(...everyPath), replacement, fc.boolean(), (at, value, extraKey) => {
      const candidate = withValueAt(defaults, extraKey ? [...at.slice(0, -1), 'notAKey'] : at, value);
      assert.equal(prebuilt(structuredClone(candidate)), compiledNow(structuredClone(candidate)));
    }),
    { numRuns: 500 },
  );
});
