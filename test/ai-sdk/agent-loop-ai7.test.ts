import { test } from 'node:test';
import { checkAgentLoop, type AiSdk } from './agent-loop.js';

// ai 7 declares Node >= 22, so it is not a dev dependency (npm ci on Node 20 would warn about
// it): .ci/run installs it as the alias ai7 (npm:ai@7) for the Node 24 pass only. Elsewhere this
// test skips and says why; the ai 6 test covers the same loop on every Node.
const major = Number(process.versions.node.split('.')[0]);
const installed = await import('ai7' as string).then(
  () => true,
  () => false,
);
const skip =
  major < 22
    ? `ai 7 declares Node >= 22; this is Node ${process.versions.node} (the ai 6 test covers this Node)`
    : !installed
      ? 'ai 7 is not installed (CI installs it on the Node 24 pass: npm install --no-save ai7@npm:ai@7)'
      : false;
if (skip !== false) console.log(`# skipped ai 7 agent loop: ${skip}`);

test('ai 7: the example agent loop spills, passes references, and guards the prompt deterministically', { skip }, async () => {
  const ai = (await import('ai7' as string)) as Record<string, unknown>;
  const testing = (await import('ai7/test' as string)) as { MockLanguageModelV4: unknown };
  await checkAgentLoop({ ...ai, MockLanguageModel: testing.MockLanguageModelV4 } as unknown as AiSdk);
});
