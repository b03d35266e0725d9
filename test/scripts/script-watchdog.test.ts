import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { ToolContext } from '../../src/host/tool.js';
import { silentLogger } from '../../src/log/logger.js';
import { scriptListFiles } from '../../src/tools/script/script-list-files.js';
import { ScriptBridge } from '../../src/script/script-bridge.js';
import { limitsFromConfig, maxStackBytes } from '../../src/script/script-limits.js';
import { ScriptWorkerSlot } from '../../src/script/script-worker-slot.js';
import { tempHost } from '../helpers/temp-host.js';
import { waitForFile } from '../helpers/wait-for.js';

test('the watchdog terminates a worker whose script does not stop at its deadline', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const limits = limitsFromConfig(env.config);
  const sandbox = env.host.sandbox.conversation('c1');
  const bridge = new ScriptBridge({
    sandbox,
    limits,
    listFiles: scriptListFiles({ sandbox, config: env.config, logger: silentLogger() } as unknown as ToolContext),
  });
  const slot = new ScriptWorkerSlot(limits, silentLogger());
  t.after(() => slot.terminate());
  await slot.started();
  // The interrupt deadline is an hour away, as if a native call never checked it;
  // only the watchdog outside the runtime can end this run. The test fires it (no timer)
  // once the script has visibly started: it logged, then wrote a file through the bridge.
  let fire: (() => void) | undefined;
  const running = slot.run({
    message: {
      type: 'run',
      runId: 1,
      source: 'console.log("started"); writeText("scripts/started.txt", "x"); while (true) {}',
      filename: 'inline.js',
      argsJson: '{}',
      limits,
      deadline: Date.now() + 3_600_000,
    },
    bridge,
    killAt: Date.now() + 3_600_000,
    signal: new AbortController().signal,
    armWatchdog: (trigger) => {
      fire = trigger;
      return () => undefined;
    },
  });
  await waitForFile(path.join(sandbox.folderPath('scripts'), 'started.txt'));
  assert.ok(fire, 'the watchdog was armed');
  fire();
  const result = await running;
  assert.equal(result.outcome.ok, false);
  assert.equal(result.outcome.retire, true);
  if (!result.outcome.ok) {
    assert.equal(result.outcome.error.code, 'SCRIPT_LIMIT');
    assert.match(result.outcome.error.message, /stopped by the watchdog/);
    assert.deepEqual(result.outcome.error.details, { limit: 'script.timeoutMs', value: limits.timeoutMs });
  }
  assert.equal(result.console, 'started\n', 'console output before the stop is kept');
  assert.equal(slot.alive, false, 'the worker thread is gone');
});

test('the stack limit is capped at 256 KiB even if the config asks for more', async () => {
  const env = await tempHost();
  try {
    const config = { ...env.config, script: { ...env.config.script, stackBytes: 8 * 1024 * 1024 } };
    assert.equal(limitsFromConfig(config).stackBytes, maxStackBytes);
    assert.equal(maxStackBytes, 262144);
  } finally {
    await env.cleanup();
  }
});
