import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import { SpillwayError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp-dir.js';

function failure(run: () => unknown): { code: string; errors: string[]; message: string } {
  try {
    run();
  } catch (error) {
    assert.ok(SpillwayError.is(error));
    return { code: error.code, errors: (error.details?.errors as string[]) ?? [], message: error.message };
  }
  throw new Error('expected the configuration to be refused');
}

test('the defaults load and hold the documented values', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.spill.thresholdChars, 1000);
  assert.equal(config.inline.maxTokens, 50000);
  assert.equal(config.retention.days, 7);
  assert.equal(config.retention.cron, '0 */6 * * *');
  assert.equal(config.args.maxBytes, 1048576);
  assert.equal(config.drawTable.maxRows, 2000);
  assert.equal(config.server.host, '127.0.0.1');
  assert.ok(path.isAbsolute(config.sandbox.root));
});

test('an unknown key fails naming the key and the one it probably meant', () => {
  const top = failure(() => loadConfig({ env: {}, overrides: { spil: {} } }));
  assert.equal(top.code, 'CONFIG_INVALID');
  assert.match(top.message, /unknown key "spil": did you mean "spill"\?/);
  const nested = failure(() => loadConfig({ env: {}, overrides: { spill: { threshold: 5 } } }));
  assert.match(nested.message, /unknown key "spill\.threshold": did you mean "spill\.thresholdChars"\?/);
  const perTool = failure(() => loadConfig({ env: {}, overrides: { spill: { tools: { 'github__*': { treshold: 1 } } } } }));
  assert.match(perTool.message, /unknown key "spill\.tools\.github__\*\.treshold"/);
});

test('a wrong type or a bad value fails naming the key', () => {
  assert.match(failure(() => loadConfig({ env: {}, overrides: { spill: { thresholdChars: '1000' } } })).message, /spill\.thresholdChars: must be integer/);
  assert.match(failure(() => loadConfig({ env: {}, overrides: { server: { port: 70000 } } })).message, /server\.port: must be <= 65535/);
  assert.match(failure(() => loadConfig({ env: {}, overrides: { log: { level: 'loud' } } })).message, /log\.level: must be one of/);
  assert.match(
    failure(() => loadConfig({ env: {}, overrides: { policy: { default: 'maybe' } } })).message,
    /policy\.default: must be one of "allow", "deny", "ask"/,
  );
  assert.match(
    failure(() => loadConfig({ env: {}, overrides: { spill: { tools: { x: { spill: 'no' } } } } })).message,
    /spill\.tools\.x\.spill: must be boolean/,
  );
});

test('a bad cron expression fails naming retention.cron', () => {
  const result = failure(() => loadConfig({ env: {}, overrides: { retention: { cron: 'every six hours' } } }));
  assert.equal(result.code, 'CONFIG_INVALID');
  assert.match(result.message, /retention\.cron: "every six hours" is not a valid cron expression/);
});

test('--config FILE and SPILLWAY_CONFIG override the defaults; relative paths resolve against the file', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'spillway.json');
  await writeFile(
    file,
    JSON.stringify({ spill: { thresholdChars: 5, tools: { 'q_*': { spill: false, inlineMaxTokens: 10, thresholdChars: 2 } } }, sandbox: { root: 'box' } }),
  );
  const viaFile = loadConfig({ file, env: {} });
  assert.equal(viaFile.spill.thresholdChars, 5);
  assert.deepEqual(viaFile.spill.tools['q_*'], { spill: false, inlineMaxTokens: 10, thresholdChars: 2 });
  assert.equal(viaFile.sandbox.root, path.join(dir, 'box'));
  assert.equal(viaFile.inline.maxTokens, 50000, 'keys not in the file keep their defaults');
  const viaEnv = loadConfig({ env: { SPILLWAY_CONFIG: file } });
  assert.equal(viaEnv.spill.thresholdChars, 5);
  const other = path.join(dir, 'other.json');
  await writeFile(other, JSON.stringify({ spill: { thresholdChars: 7 } }));
  assert.equal(loadConfig({ file: other, env: { SPILLWAY_CONFIG: file } }).spill.thresholdChars, 7, '--config wins over SPILLWAY_CONFIG');
});

test('an unreadable or non-JSON file, and a __proto__ key, fail with a coded error', async (t) => {
  const dir = await tempDir(t);
  assert.equal(failure(() => loadConfig({ file: path.join(dir, 'missing.json'), env: {} })).code, 'CONFIG_UNREADABLE');
  const broken = path.join(dir, 'broken.json');
  await writeFile(broken, '{"spill": ');
  assert.equal(failure(() => loadConfig({ file: broken, env: {} })).code, 'CONFIG_UNREADABLE');
  const polluted = path.join(dir, 'polluted.json');
  await writeFile(polluted, '{"__proto__": {"polluted": true}}');
  assert.equal(failure(() => loadConfig({ file: polluted, env: {} })).code, 'CONFIG_UNREADABLE');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
