// The context guard before each model call: a 200-message, ~150k-token
// conversation (99 tool steps whose results carry spill references) against a
// 128k window at the default share (0.85). Measured through the AI SDK
// middleware (spillwayContextGuard.transformParams), the path a real host takes.
// Baseline in the same run: serializing the prompt once (JSON.stringify + byte
// length), which every provider request pays anyway. Goal: under 5 ms a call.
import { spillwayContextGuard } from '../src/ai-sdk/index.js';
import type { GuardReport } from '../src/context-guard/index.js';
import { byteRatioCounter, counterForModel } from '../src/context-guard/index.js';

const ROWS_MIN = Number(process.env.GUARD_ROWS_MIN ?? 18);
const ROWS_SPREAD = Number(process.env.GUARD_ROWS_SPREAD ?? 64);

type Message = { role: string; content: string | Record<string, unknown>[] };

/** 200 messages: system, user, 99 steps (an assistant tool call and its result each). */
export function conversation(steps = 99, seed = 7): Message[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const messages: Message[] = [
    { role: 'system', content: 'You are a careful analyst. Pass file paths to tools, never rows.' },
    { role: 'user', content: [{ type: 'text', text: 'Reconcile the ledger with the CRM and export the differences.' }] },
  ];
  for (let step = 0; step < steps; step += 1) {
    const id = `call_${String(step).padStart(4, '0')}`;
    const rows = ROWS_MIN + Math.floor(random() * ROWS_SPREAD);
    const body = JSON.stringify(
      Array.from({ length: rows }, (_, row) => ({
        id: step * 1000 + row,
        account: `ACC-${(row * 7919) % 10_000}`,
        amount: Math.round(random() * 1e6) / 100,
        note: `row ${row} of step ${step}`,
      })),
    );
    const reference = `[spillway] Saved to results/${String(step + 1).padStart(4, '0')}-query_sql.jsonl (JSONL table, ${rows * 25} rows × 4 columns, ${rows * 2} KiB, expires 2026-12-08T08:00:00.000Z). Columns: id, account, amount, note.`;
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'query_sql', input: { sql: `SELECT * FROM ledger WHERE batch = ${step}` } }],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'query_sql',
          output: { type: 'text', value: `${body}\n[spillway] Showing ${rows} of ${rows * 25} rows; the file holds all ${rows * 25}.\n\n${reference}` },
        },
      ],
    });
  }
  return messages;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeCalls(label: string, counter: Awaited<ReturnType<typeof counterForModel>>, prompt: Message[], rounds: number) {
  let report: GuardReport | undefined;
  const middleware = spillwayContextGuard({ contextWindow: 128_000, counter, onReport: (next) => (report = next) });
  const call = () => middleware.transformParams({ type: 'generate', params: { prompt: prompt as never }, model: { modelId: 'bench' } });
  let started = performance.now();
  await call();
  const cold = performance.now() - started;
  const warm: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    started = performance.now();
    await call();
    warm.push(performance.now() - started);
  }
  return { label, cold, warm: median(warm), report: report as GuardReport };
}

export default async function guardBench(): Promise<void> {
  const prompt = conversation();
  const baseline: number[] = [];
  for (let round = 0; round < 50; round += 1) {
    const started = performance.now();
    Buffer.byteLength(JSON.stringify(prompt));
    baseline.push(performance.now() - started);
  }
  const floor = median(baseline);
  const bytes = Buffer.byteLength(JSON.stringify(prompt));
  console.log(`conversation: ${prompt.length} messages, ${(bytes / 1024).toFixed(0)} KiB; window 128,000 tokens, share 0.85 (budget 108,800)`);
  console.log(`baseline (serialize the prompt once): ${floor.toFixed(2)} ms\n`);
  const runs = [
    await timeCalls('bytes/1.84 (unknown model)', byteRatioCounter(), prompt, 50),
    await timeCalls('o200k_base (gpt-tokenizer)', await counterForModel('gpt-4o'), prompt, 20),
  ];
  console.log('| counter | tokens before | tokens after | saved | results replaced | first call ms | later calls ms (median) | later / baseline |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const run of runs) {
    const { report } = run;
    console.log(
      `| ${run.label} | ${report.tokensBefore.toLocaleString('en')} | ${report.tokensAfter.toLocaleString('en')} | ${(report.tokensBefore - report.tokensAfter).toLocaleString('en')} | ${report.replaced.length} | ${run.cold.toFixed(2)} | ${run.warm.toFixed(2)} | ${(run.warm / floor).toFixed(1)}× |`,
    );
  }
}
