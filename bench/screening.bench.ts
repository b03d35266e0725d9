// What screening finds and what it costs. Recall and false positives over the
// generated corpus of test/screening/secret-corpus.ts (planted secrets of every
// kind in text, JSON and JSONL, plus near-misses); then the spill bench's call
// (host.execute of a tool returning the data) with screening off and on, rounds
// interleaved in one process, at 100 KB and 10 MB.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Host } from '../src/host/host.js';
import { createHost } from '../src/runtime/create-host.js';
import { FindingCollector, type Finding } from '../src/screening/findings.js';
import type { ScreeningPolicy } from '../src/screening/screening-policy.js';
import { screenText } from '../src/screening/screen-text.js';
import { screenJson, screenRow } from '../src/screening/screen-value.js';
import { makeCorpus, type Planted } from '../test/screening/secret-corpus.js';
import { benchConfig, makeBenchInput } from './bench-setup.js';

type Kind = 'text' | 'table' | 'table, 1% rows with a secret';

const sizes: [string, number][] = [
  ['100 KB', 100 * 1024],
  ['10 MB', 10 * 1024 * 1024],
];

const key = (finding: Pick<Finding, 'kind' | 'row' | 'field' | 'line'>) => JSON.stringify([finding.kind, finding.row, finding.field, finding.line]);

function recall(): void {
  const policy: ScreeningPolicy = { secrets: 'redact', injection: 'off', keep: false, maxFindings: 1_000_000 };
  const corpus = makeCorpus(50);
  const shapes: [string, Planted[], (collector: FindingCollector) => void][] = [
    ['JSONL rows', corpus.rowSecrets, (collector) => corpus.rows.forEach((row, index) => screenRow(row, index + 1, policy, collector))],
    ['text lines', corpus.textSecrets, (collector) => screenText(corpus.text, policy, collector)],
    ['nested JSON', corpus.jsonSecrets, (collector) => screenJson(corpus.json, policy, collector)],
  ];
  console.log('| corpus | planted secrets | found | recall | false positives | near-misses planted |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, planted, run] of shapes) {
    const collector = new FindingCollector(1_000_000);
    run(collector);
    const expected = new Set(planted.map(key));
    const found = collector.findings.filter((finding) => expected.has(key(finding))).length;
    const falsePositives = collector.findings.length - found;
    console.log(`| ${name} | ${planted.length} | ${found} | ${((100 * found) / planted.length).toFixed(1)}% | ${falsePositives} | ${planted.length} |`);
  }
}

function makeInput(kind: Kind, bytes: number): string {
  if (kind !== 'table, 1% rows with a secret') return makeBenchInput(kind, bytes);
  const rows = JSON.parse(makeBenchInput('table', bytes)) as Record<string, unknown>[];
  rows.forEach((row, index) => {
    if (index % 100 === 7) row.note = `deploy with AKIA${'ABCDEFGHIJKLMNOP'.slice(index % 16)}${'QRSTUVWXYZ234567'.slice(0, index % 16)} ok`;
  });
  return JSON.stringify(rows);
}

async function prepare(
  kind: Kind,
  input: string,
  dir: string,
  screening: boolean,
): Promise<{ run(): Promise<void>; reset(): Promise<void>; close(): Promise<void> }> {
  const off = { secrets: 'off', injection: 'off' };
  const config = benchConfig(dir, { spill: { thresholdChars: 1000, tools: {} }, ...(screening ? {} : { screening: off }) });
  const host: Host = await createHost({ config, builtins: false });
  host.registerTool({
    name: 'bench',
    description: 'bench',
    inputSchema: { type: 'object' },
    handler: () => (kind === 'text' ? { value: input } : { mcp: { content: [{ type: 'text', text: input }] } }),
  });
  const results = path.join(dir, 'sandbox', 'local', 'conv', 'results');
  let call = 0;
  return {
    async run() {
      call += 1;
      const result = await host.execute({ name: 'bench', arguments: {}, id: `c${call}` }, { conversationId: 'conv' });
      if (result.isError || result.spill === undefined) throw new Error(`bench call failed: ${result.text.slice(0, 300)}`);
    },
    async reset() {
      for (const name of await readdir(results).catch(() => [] as string[])) await rm(path.join(results, name), { force: true });
    },
    close: () => host.close(),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function cost(): Promise<void> {
  console.log('\n| result | size | rounds | screening off ms | on ms | on/off | CPU on/off |');
  console.log('|---|---|---|---|---|---|---|');
  for (const kind of ['text', 'table', 'table, 1% rows with a secret'] as Kind[]) {
    for (const [label, bytes] of sizes) {
      const dir = await mkdtemp(path.join(tmpdir(), 'spillway-bench-screening-'));
      try {
        const input = makeInput(kind, bytes);
        const benches = [await prepare(kind, input, path.join(dir, 'off'), false), await prepare(kind, input, path.join(dir, 'on'), true)];
        const rounds = bytes >= 1024 * 1024 ? 9 : 61;
        const times: number[][] = [[], []];
        const cpu: number[][] = [[], []];
        for (let round = -2; round < rounds; round += 1) {
          for (const [index, bench] of benches.entries()) {
            const start = performance.now();
            const cpuStart = process.cpuUsage();
            await bench.run();
            const elapsed = performance.now() - start;
            const used = process.cpuUsage(cpuStart);
            if (round >= 0) {
              times[index]?.push(elapsed);
              cpu[index]?.push((used.user + used.system) / 1000);
            }
            if (bytes >= 1024 * 1024 || round % 20 === 19) await bench.reset();
          }
        }
        for (const bench of benches) await bench.close();
        const [off, on] = times.map(median) as [number, number];
        const [offCpu, onCpu] = cpu.map(median) as [number, number];
        console.log(`| ${kind} | ${label} | ${rounds} | ${off.toFixed(1)} | ${on.toFixed(1)} | ${(on / off).toFixed(2)}× | ${(onCpu / offCpu).toFixed(2)}× |`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
}

export default async function screeningBench(): Promise<void> {
  console.log(`Node ${process.version}, ${process.platform}; medians; rounds of off and on interleaved in one process.\n`);
  recall();
  await cost();
  console.log('\non/off: the spill call with the default screening (secrets redact, injection flag) over the same call with both off; goal ≤ 1.15×.');
}
