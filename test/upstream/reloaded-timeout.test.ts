import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Config } from '../../src/config/schema.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import { tempHost } from '../helpers/temp-host.js';
import { recordingEntry } from './upstream-fixtures.js';

test('an upstream tool takes its timeout from the configuration of the call: a reloaded upstream.timeoutMs applies to the next call', async (t) => {
  const env = await tempHost({ policy: { rules: { 'rec__*': 'allow' } }, upstream: { timeoutMs: 600_000, reconnectMinMs: 50, reconnectMaxMs: 200 } });
  t.after(() => env.cleanup());
  env.host.updateConfig({ ...env.config, upstreams: { rec: recordingEntry(path.join(env.dir, 'received')) } as unknown as Config['upstreams'] });
  await startUpstreams(env.host).settled();
  // A reload (config watcher) changes upstream.timeoutMs; the connection was made under the old value.
  env.host.updateConfig({ ...env.host.config, upstream: { ...env.host.config.upstream, timeoutMs: 300 } });
  const result = await env.host.execute({ name: 'rec__slow', arguments: { ms: 60_000 } }, { conversationId: 'c1' });
  assert.equal(result.error?.code, 'TOOL_TIMEOUT', result.text);
  assert.match(result.text, /did not answer slow within 300 ms/);
  assert.equal((result.error?.details as { timeoutMs?: number } | undefined)?.timeoutMs, 300);
});
