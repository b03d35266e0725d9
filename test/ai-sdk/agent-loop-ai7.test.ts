import { test } from 'node:test';
import type { LanguageModelMiddleware, Tool } from 'ai7';
import { spillwayContextGuard, type SpillwayToolOutput } from '../../src/ai-sdk/index.js';
import { checkAgentLoop, type AiSdk } from './agent-loop.js';

// Compile-time checks against ai 7's own types (no ai 7 code runs here).
export const middlewareForAi7: LanguageModelMiddleware = spillwayContextGuard({ contextWindow: 1000 });
export type ToolForAi7 = Tool<Record<string, unknown>, SpillwayToolOutput>;

const major = Number(process.versions.node.split('.')[0]);
// ai 7 declares Node >= 22 (package.json engines); on older Node it is not a supported combination.
const skip = major < 22 ? `ai 7 declares Node >= 22; this is Node ${process.versions.node} (the ai 6 test covers this Node)` : false;
if (skip !== false) console.log(`# skipped ai 7 agent loop: ${skip}`);

test('ai 7: the example agent loop spills, passes references, and guards the prompt deterministically', { skip }, async () => {
  // Installed as the alias ai7 (npm:ai@7) beside ai 6.
  const ai = await import('ai7');
  const testing = await import('ai7/test');
  await checkAgentLoop({ ...ai, MockLanguageModel: testing.MockLanguageModelV4 } as unknown as AiSdk);
});
