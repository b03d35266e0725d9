import { test } from 'node:test';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { spillwayContextGuard } from '../../src/ai-sdk/index.js';
import { checkAgentLoop, type AiSdk } from './agent-loop.js';

// ai 6 declares Node >= 18: this runs on every Node CI uses (20 and 24).
test('ai 6: the example agent loop spills, passes references, and guards the prompt deterministically', async () => {
  await checkAgentLoop({ generateText, wrapLanguageModel, stepCountIs, tool, jsonSchema, MockLanguageModel: MockLanguageModelV3 } as unknown as AiSdk);
});

test("ai 6: the middleware and the tools type-check against the SDK's own types", () => {
  // Compile-time check: wrapLanguageModel accepts the guard as LanguageModelMiddleware.
  const model = wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: spillwayContextGuard({ contextWindow: 1000 }) });
  if (model.specificationVersion !== 'v3') throw new Error(`unexpected ${model.specificationVersion}`);
});
