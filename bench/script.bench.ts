// run_script: start-up cost of one call, and rows/s of readRows → writeJson for
// 100k rows beside the same transformation in plain Node, measured in the same run.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Host } from '../src/host/host.js';
import { makeRows, tempHost } from '../test/helpers/temp-host.js';

const scriptLimits = {
  timeoutMs: 300_000,
  memoryBytes: 1024 * 1024 * 1024,
  stackBytes: 262144,
  maxReadBytes: 1 << 30,
  maxWriteBytes: 1 << 30,
  maxOutputChars: 1_000_000,
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function call(host: Host, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await host.execute({ name, arguments: args }, { conversationId: 'bench' });
  if (result.isError) throw new Error(`${name} failed: ${result.text}`);
}

async function startup(): Promise<void> {
  const env = await tempHost({ script: scriptLimits });
  try {
    env.host.registerTool({ name: 'noop', description: 'noop', inputSchema: { type: 'object' }, handler: () => ({ value: 1 }) });
    const baseline: number[] = [];
    for (let index = 0; index < 20; index += 1) baseline.push(await timed(() => call(env.host, 'noop', {})));
    const cold = await timed(() => call(env.host, 'run_script', { code: 'return 1;' }));
    const warm: number[] = [];
    for (let index = 0; index < 20; index += 1) warm.push(await timed(() => call(env.host, 'run_script', { code: 'return 1;' })));
    const spaced: number[] = [];
    for (let index = 0; index < 10; index += 1) {
      // Calls a model makes are seconds apart: the worker prepares the next WebAssembly instance in between.
      await new Promise((resolve) => setTimeout(resolve, 200));
      spaced.push(await timed(() => call(env.host, 'run_script', { code: 'return 1;' })));
    }
    const afterLimit: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      // A run that hits a limit retires its worker; the replacement is started at once.
      await env.host.execute({ name: 'run_script', arguments: { code: 'function f() { return f() + 1; } return f();' } }, { conversationId: 'bench' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      afterLimit.push(await timed(() => call(env.host, 'run_script', { code: 'return 1;' })));
    }
    const noop = median(baseline);
    console.log('start-up of one run_script call ("return 1"), through host.execute:');
    console.log(`  baseline: a no-op local tool call   ${noop.toFixed(2)} ms (median of 20)`);
    console.log(`  run_script, cold (worker spawned)   ${cold.toFixed(1)} ms (${(cold / noop).toFixed(0)}× baseline)`);
    console.log(`  run_script, warm worker             ${median(warm).toFixed(1)} ms (median of 20; ${(median(warm) / noop).toFixed(0)}× baseline)`);
    console.log(`  run_script, warm, calls 200 ms apart ${median(spaced).toFixed(1)} ms (median of 10; ${(median(spaced) / noop).toFixed(0)}× baseline)`);
    console.log(`  run_script after a limit retired    ${median(afterLimit).toFixed(1)} ms (median of 3, replacement worker pre-started)`);
  } finally {
    await env.cleanup();
  }
}

async function throughput(rowCount: number): Promise<void> {
  const env = await tempHost({ script: scriptLimits, args: { maxBytes: 256 * 1024 * 1024 }, spill: { thresholdChars: 1000, tools: {} } });
  try {
    const rows = makeRows(rowCount);
    env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
    const spilled = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'bench' });
    const spill = spilled.spill?.path as string;
    const dir = path.join(env.host.sandbox.conversation('bench').dir);
    const spillBytes = spilled.spill?.bytes ?? 0;

    // Plain Node: the same reshaping, same files, same output bytes.
    const node = await timed(async () => {
      const text = await readFile(path.join(dir, spill), 'utf8');
      const items = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { id: number; name: string; amount: number; note: string })
        .map((row) => ({ ref: row.id, title: row.name, value: row.amount, body: row.note }));
      await writeFile(path.join(dir, 'args', 'node.json'), `${JSON.stringify({ items }, null, 2)}\n`);
    });
    const whole = `const items = readRows(args.path).map((row) => ({ ref: row.id, title: row.name, value: row.amount, body: row.note }));\nwriteJson('args/script.json', { items });\nreturn items.length;`;
    const script = await timed(() => call(env.host, 'run_script', { code: whole, args: { path: spill } }));
    const paged = `const items = [];\nfor (let offset = 0; ; offset += 10000) { const page = readRows(args.path, { offset, limit: 10000 }); if (page.length === 0) break; for (const row of page) items.push({ ref: row.id, title: row.name, value: row.amount, body: row.note }); }\nwriteJson('args/paged.json', { items });\nreturn items.length;`;
    const pagedMs = await timed(() => call(env.host, 'run_script', { code: paged, args: { path: spill } }));
    const same = (await readFile(path.join(dir, 'args', 'node.json'), 'utf8')) === (await readFile(path.join(dir, 'args', 'script.json'), 'utf8'));
    const rate = (ms: number): string => `${Math.round(rowCount / (ms / 1000)).toLocaleString('en-US')} rows/s`;
    console.log(`\nreadRows → reshape → writeJson, ${rowCount.toLocaleString('en-US')} rows (${(spillBytes / 1e6).toFixed(1)} MB JSONL in):`);
    console.log(`  baseline: plain Node (same work)    ${node.toFixed(0)} ms  ${rate(node)}`);
    console.log(`  run_script, one readRows            ${script.toFixed(0)} ms  ${rate(script)}  (${(script / node).toFixed(1)}× Node)`);
    console.log(`  run_script, pages of 10,000 rows    ${pagedMs.toFixed(0)} ms  ${rate(pagedMs)}  (${(pagedMs / node).toFixed(1)}× Node)`);
    console.log(`  output identical to Node's: ${same}`);
  } finally {
    await env.cleanup();
  }
}

export default async function bench(): Promise<void> {
  await startup();
  await throughput(100_000);
}
