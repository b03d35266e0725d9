import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { spillwayContextGuard, spillwayTools, withSpill, type GuardReport } from '../../src/ai-sdk/index.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

/** What the scenario needs from an `ai` major (6 or 7) and its `ai/test` module. */
export interface AiSdk {
  generateText(options: Record<string, unknown>): Promise<{ text: string; steps: { toolResults: { toolName: string; output: unknown }[] }[] }>;
  wrapLanguageModel(options: { model: unknown; middleware: unknown }): unknown;
  stepCountIs(count: number): unknown;
  tool(definition: Record<string, unknown>): unknown;
  jsonSchema(schema: Record<string, unknown>): unknown;
  MockLanguageModel: new (options: { modelId?: string; doGenerate: (options: { prompt: unknown[] }) => Promise<unknown> }) => unknown;
}

type Content = Record<string, unknown>;

function generated(content: Content[], finish: 'tool-calls' | 'stop') {
  return {
    content,
    finishReason: { unified: finish, raw: undefined },
    usage: { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } },
    warnings: [],
  };
}

function toolCall(toolCallId: string, toolName: string, input: unknown): Content {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
}

/** The text of the tool result answering `toolCallId` in a prompt. */
export function resultText(prompt: unknown[], toolCallId: string): string {
  for (const message of prompt as { role: string; content: { type: string; toolCallId?: string; output?: { value?: unknown } }[] }[]) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result' && part.toolCallId === toolCallId) return String(part.output?.value);
  }
  return '';
}

export interface LoopRun {
  /** The prompts the model received (after the guard), in order. */
  prompts: unknown[][];
  reports: GuardReport[];
  text: string;
  listed: unknown;
  csv: string;
}

/**
 * The example agent loop: a scripted test model, a real spillway host, the
 * host's tools plus a host-side AI SDK tool wrapped with withSpill, and the
 * context guard as middleware.
 */
export async function runAgentLoop(ai: AiSdk): Promise<LoopRun> {
  const env = await tempHost({ inline: { maxTokens: 5000 } }, { now: () => new Date('2026-12-01T08:00:00.000Z') });
  try {
    const rows = makeRows(10_000);
    env.host.registerTool({
      name: 'list_rows',
      description: 'All rows of the ledger.',
      inputSchema: { type: 'object', properties: {} },
      handler: () => ({ value: rows }),
    });
    const conversationId = 'loop-1';
    const principal = 'tester';
    const crmNotes = ai.tool({
      description: 'Notes from the CRM.',
      inputSchema: ai.jsonSchema({ type: 'object', properties: {} }),
      execute: async () => Array.from({ length: 3000 }, (_, index) => ({ account: index, note: `called on day ${index % 30}` })),
    });
    const tools = {
      ...spillwayTools(env.host, { conversationId, principal }),
      crm_notes: withSpill(crmNotes as Parameters<typeof withSpill>[0], env.host, { conversationId, principal, toolName: 'crm_notes' }),
    };

    const prompts: unknown[][] = [];
    let listedPath = '';
    const script = [
      () => generated([toolCall('call-1', 'list_rows', {})], 'tool-calls'),
      (prompt: unknown[]) => {
        // The model's next call sees the reference, and passes the path on (never the rows).
        listedPath = /\[spillway\] Saved to (results\/\S+\.jsonl)/.exec(resultText(prompt, 'call-1'))?.[1] ?? '';
        return generated([toolCall('call-2', 'crm_notes', {})], 'tool-calls');
      },
      () => generated([toolCall('call-3', 'export_table', { source: listedPath, format: 'csv' })], 'tool-calls'),
      () => generated([{ type: 'text', text: 'Exported all 10,000 rows.' }], 'stop'),
    ];
    const model = new ai.MockLanguageModel({
      modelId: 'scripted-test-model',
      doGenerate: async ({ prompt }) => {
        prompts.push(JSON.parse(JSON.stringify(prompt)) as unknown[]);
        const next = script[prompts.length - 1];
        assert.ok(next, 'the model was called more often than scripted');
        return next(prompt);
      },
    });
    const reports: GuardReport[] = [];
    const guarded = ai.wrapLanguageModel({
      model,
      middleware: spillwayContextGuard({
        contextWindow: 14_000,
        share: 0.85,
        host: env.host,
        conversationId,
        principal,
        onReport: (report) => reports.push(report),
      }),
    });
    const result = await ai.generateText({
      model: guarded,
      tools,
      system: 'You are a careful analyst.',
      prompt: 'Export every ledger row as CSV.',
      stopWhen: ai.stepCountIs(6),
    });
    const csv = await readFile(path.join(env.host.sandbox.conversation(conversationId, principal).dir, 'outputs', '0001-list_rows.csv'), 'utf8');
    return { prompts, reports, text: result.text, listed: result.steps[0]?.toolResults[0]?.output, csv };
  } finally {
    await env.cleanup();
  }
}

/** The checks shared by every `ai` major. */
export async function checkAgentLoop(ai: AiSdk): Promise<void> {
  const run = await runAgentLoop(ai);
  assert.equal(run.text, 'Exported all 10,000 rows.');
  assert.equal(run.prompts.length, 4);

  // 1. The 10,000-row result spilled; the model read a whole-record prefix and the reference.
  const listed = resultText(run.prompts[1] ?? [], 'call-1');
  assert.match(listed, /\[spillway\] Showing [\d,]+ of 10,000 rows; the file holds all 10,000\./);
  assert.match(listed, /\[spillway\] Saved to results\/0001-list_rows\.jsonl \(JSONL table, 10,000 rows × 5 columns/);
  const output = run.listed as { spill?: { path: string; rows: number }; truncated: boolean };
  assert.deepEqual([output.spill?.path, output.spill?.rows, output.truncated], ['results/0001-list_rows.jsonl', 10_000, true]);

  // 2. The guard did nothing while the prompt fitted, then replaced the old result by its reference.
  assert.deepEqual(
    run.reports.map((report) => report.action),
    ['none', 'none', 'replaced', 'replaced'],
  );
  assert.deepEqual(
    run.reports[2]?.replaced.map((entry) => [entry.toolName, entry.toolCallId, entry.path]),
    [['list_rows', 'call-1', 'results/0001-list_rows.jsonl']],
  );
  assert.ok((run.reports[2]?.tokensAfter ?? Infinity) <= (run.reports[2]?.budget ?? 0));
  const replaced = resultText(run.prompts[2] ?? [], 'call-1');
  assert.match(replaced, /^\[spillway\] The result of list_rows \(call call-1\) was taken out of the prompt/);
  assert.match(replaced, /Saved to results\/0001-list_rows\.jsonl/);
  // The last turn (crm_notes, spilled by withSpill) is untouched.
  assert.match(resultText(run.prompts[2] ?? [], 'call-2'), /\[spillway\] Saved to results\/0002-crm_notes\.jsonl/);
  assert.doesNotMatch(resultText(run.prompts[2] ?? [], 'call-2'), /taken out of the prompt/);
  // Later calls keep the same bytes for the replaced result (the prompt cache keeps hitting).
  assert.equal(resultText(run.prompts[3] ?? [], 'call-1'), replaced);

  // 3. The export read the file, not the prompt: all 10,000 rows.
  assert.equal(run.csv.trim().split('\n').length, 10_001);

  // 4. Identical input, identical output: a second run sends byte-identical prompts.
  const again = await runAgentLoop(ai);
  assert.equal(JSON.stringify(again.prompts[2]), JSON.stringify(run.prompts[2]));
  assert.equal(JSON.stringify(again.prompts[3]), JSON.stringify(run.prompts[3]));
}
