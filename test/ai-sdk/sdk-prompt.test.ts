import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyToSdkPrompt, sdkPrompt, type SdkMessage } from '../../src/ai-sdk/sdk-prompt.js';

test('the AI SDK prompt adapter: tool results are slots, denied executions and files are counted but never replaced', () => {
  const prompt = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: new Uint8Array(300) }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'x', input: {} }] },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 'x', output: { type: 'error-json', value: { problem: 'bad' } } },
        { type: 'tool-result', toolCallId: 'b', toolName: 'y', output: { type: 'execution-denied', reason: 'no' } },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'next' }] },
  ];
  const messages: readonly SdkMessage[] = prompt;
  const guardPrompt = sdkPrompt(messages);
  assert.equal(guardPrompt.lastTurnStart, 4);
  assert.deepEqual(
    guardPrompt.slots.map((slot) => [slot.toolCallId, slot.text, slot.isError]),
    [['a', '{"problem":"bad"}', true]],
  );
  // The 300 bytes of the image count as their 400 base64 characters, without encoding them.
  assert.ok(guardPrompt.otherTexts.some((text) => text.includes('b'.repeat(400))));
  const slot = guardPrompt.slots[0];
  assert.ok(slot);
  const replaced = applyToSdkPrompt(messages, new Map([[slot, 'see the file']]));
  assert.deepEqual((replaced[3]?.content as unknown as { output?: unknown }[])[0]?.output, { type: 'error-text', value: 'see the file' });
  assert.equal((replaced[3]?.content as unknown[])[1], (prompt[3]?.content as unknown[])[1]);
  assert.equal(replaced[1], prompt[1]);
  assert.deepEqual(
    (prompt[3]?.content as unknown as { output?: unknown }[])[0]?.output,
    { type: 'error-json', value: { problem: 'bad' } },
    'the input is not mutated',
  );
});
