import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import { SpillwayError } from '../../src/errors.js';

const invalid = (pattern: RegExp) => (error: unknown) => SpillwayError.is(error) && error.code === 'CONFIG_INVALID' && pattern.test(error.message);

test('retention.days of 0 or negative is refused, naming the key', () => {
  for (const days of [0, -1, -0.5]) {
    assert.throws(() => loadConfig({ env: {}, overrides: { retention: { days } } }), invalid(/retention\.days/));
  }
  assert.equal(loadConfig({ env: {}, overrides: { retention: { days: 0.5 } } }).retention.days, 0.5);
});

test('an unparsable retention.cron is refused, naming the key and an example', () => {
  for (const cron of ['every six hours', '61 * * * *', '0 */6 * *  * * *', '* * * * * * *']) {
    assert.throws(() => loadConfig({ env: {}, overrides: { retention: { cron } } }), invalid(/retention\.cron/));
  }
  assert.equal(loadConfig({ env: {}, overrides: { retention: { cron: '*/5 * * * *' } } }).retention.cron, '*/5 * * * *');
});

test('negative quotas are refused', () => {
  assert.throws(() => loadConfig({ env: {}, overrides: { retention: { maxBytes: -1 } } }), invalid(/retention\.maxBytes/));
  assert.throws(() => loadConfig({ env: {}, overrides: { retention: { maxBytesPerConversation: 1.5 } } }), invalid(/retention\.maxBytesPerConversation/));
});
