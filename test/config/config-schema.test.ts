import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/load-config.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { defaultsOf } from '../../src/config/schema-defaults.js';
import { isJsonObject } from '../../src/util/is-json-object.js';

test('every key the schema requires has a default there, and the defaults alone are a valid configuration', () => {
  const missing: string[] = [];
  const walk = (schema: unknown, defaults: unknown, key: string[]): void => {
    if (!isJsonObject(schema) || !isJsonObject(schema.properties) || schema.default !== undefined) return;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const [name, member] of Object.entries(schema.properties)) {
      const value = isJsonObject(defaults) ? defaults[name] : undefined;
      if (value === undefined && required.includes(name)) missing.push([...key, name].join('.'));
      walk(member, value, [...key, name]);
    }
  };
  const defaults = defaultsOf(configSchema);
  walk(configSchema, defaults, []);
  assert.deepEqual(missing, []);
  const config: Config = validateConfig(defaults);
  assert.equal(config.sql.source.type, 'demo');
  assert.deepEqual(config.policy.rules, {});
});

test('defaultsOf gives fresh objects on every call, so a loaded configuration never changes the next one', () => {
  const first = defaultsOf(configSchema) as Config;
  first.spill.tools['x'] = { spill: false };
  first.sql.source = { type: 'sqlite', file: '/tmp/x.sqlite' };
  const second = defaultsOf(configSchema) as Config;
  assert.deepEqual(second.spill.tools, { query_sql: { thresholdChars: 0 }, query_files: { thresholdChars: 0 } });
  assert.deepEqual(second.sql.source, { type: 'demo' });
});
