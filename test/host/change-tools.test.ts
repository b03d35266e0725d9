import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempHost } from '../helpers/temp-host.js';

test('changeTools registers and removes several tools with one tools-changed event', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  let changes = 0;
  env.host.on('tools-changed', () => (changes += 1));
  const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object' as const }, handler: () => ({ value: name }) });
  env.host.changeTools(() => {
    env.host.registerTool(tool('a'));
    env.host.registerTool(tool('b'));
    env.host.changeTools(() => env.host.registerTool(tool('c')));
  });
  assert.equal(changes, 1);
  env.host.changeTools(() => env.host.unregisterTool('not-there'));
  assert.equal(changes, 1, 'nothing changed, nothing emitted');
  env.host.changeTools(() => {
    env.host.unregisterTool('a');
    env.host.unregisterTool('b');
  });
  assert.equal(changes, 2);
  env.host.registerTool(tool('d'));
  assert.equal(changes, 3, 'outside changeTools every change is emitted');
});
