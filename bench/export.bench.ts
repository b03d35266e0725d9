// Exports: export_table (CSV, XLSX) and build_document (DOCX, PPTX) against baselines
// measured in the same run. Each case runs in its own child process so that its peak
// RSS (maxRSS) is its own; the parent prints the table. `npm run bench -- export`.
//
// Baselines:
//   naive CSV   readline + JSON.parse + a per-row join (csv-stringify is not installed;
//               this is the same pipeline with a simpler serializer), one write per row
//   raw copy    fs.copyFile of the CSV the export produced (a file of the same size): the limit
//   DuckDB      COPY (SELECT … [ORDER BY …]) TO 'x.csv' over the same JSONL (@duckdb/node-api)
//   bare exceljs  streaming WorkbookWriter fed rows already in memory, same options, no reading
//   general writer  writeCsvByRows in-process: rows from selectRows, one csvLine each (the CSV export before issue 21)
//   DuckDB parquet  COPY (SELECT * FROM read_json(…)) TO 'x.parquet' (FORMAT parquet), DuckDB's own threads
// EXPORT_BENCH_FORMATS=csv,parquet runs only those formats (default: csv, xlsx, parquet and documents).
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FilePool } from '../src/files/pool/file-pool.js';
import type { DocumentResult, DocumentTask, TableResult, TableTask, WorkerKind } from '../src/files/pool/worker-task.js';

const thisFile = fileURLToPath(import.meta.url);
const conversationId = 'bench';
const principal = 'local';

interface CaseSpec {
  name: string;
  kind: 'export' | 'export-pair' | 'naive-csv' | 'raw-copy' | 'duckdb' | 'bare-exceljs' | 'document' | 'parquet' | 'duckdb-parquet' | 'csv-rows';
  root: string;
  source: string;
  rows: number;
  format?: WorkerKind;
  sort?: boolean;
  /** Every column with the "text" format: the export without column formatting, to price it. */
  plain?: boolean;
  threads?: number;
  copyOf?: string;
}

interface CaseResult {
  ms: number;
  /** CPU time of the whole process (all threads), less sensitive than wall time to a busy machine. */
  cpuMs?: number | null;
  rows: number;
  bytes: number;
  maxRssMb: number;
}

const columns = ['id', 'name', 'amount', 'qty', 'active', 'category', 'city', 'score', 'created', 'note'];
const sortKey = { column: 'amount', direction: 'desc' as const };

function syntheticRow(index: number): Record<string, unknown> {
  return {
    id: index + 1,
    name: `customer-${(index * 7919) % 100000}`,
    amount: Math.round(((index * 104729) % 1000000) / 7) / 100,
    qty: (index * 31) % 97,
    active: index % 3 !== 0,
    category: ['hardware', 'software', 'services', 'support', 'training'][index % 5],
    city: ['Lisbon', 'Oslo', 'Kraków', 'Zürich', 'São Paulo', 'Tokyo'][index % 6],
    score: index % 11 === 0 ? null : ((index * 13) % 1000) / 10,
    created: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(),
    note: index % 50 === 0 ? 'says "hi", then =SUM(A1)' : `order ${index} shipped`,
  };
}

/** A spill as the host writes it: results/NNNN-bench.jsonl plus its metadata. */
async function writeSource(root: string, rows: number): Promise<string> {
  const relative = `results/${String(rows).padStart(7, '0')}-bench.jsonl`;
  const file = path.join(root, principal, conversationId, relative);
  await mkdir(path.dirname(file), { recursive: true });
  const stream = createWriteStream(file);
  let chunk = '';
  for (let index = 0; index < rows; index += 1) {
    chunk += `${JSON.stringify(syntheticRow(index))}\n`;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
      chunk = '';
    }
  }
  stream.end(chunk);
  await new Promise<void>((resolve) => stream.once('close', () => resolve()));
  const bytes = (await stat(file)).size;
  await writeFile(`${file}.meta.json`, JSON.stringify({ path: relative, format: 'jsonl', bytes, rows, columns }));
  return relative;
}

// ---------------------------------------------------------------- child side

async function runCase(spec: CaseSpec): Promise<CaseResult> {
  const sourceFile = path.join(spec.root, principal, conversationId, spec.source);
  const outDir = path.join(spec.root, principal, conversationId, 'outputs');
  await mkdir(outDir, { recursive: true });
  const started = () => {
    cpuAtStart = process.cpuUsage();
    return performance.now();
  };
  switch (spec.kind) {
    case 'export':
    case 'export-pair': {
      const pool = new FilePool({ poolSize: spec.threads ?? 1, maxQueue: 8, taskTimeoutMs: 3_600_000 });
      const format = spec.format as 'csv' | 'xlsx';
      const task = (filename: string): TableTask => ({
        source: { kind: 'sandbox', root: spec.root, principal, conversationId, path: spec.source },
        selection: {
          sort: spec.sort ? [sortKey] : [],
          ...(spec.plain === true ? { columns: columns.map((name) => ({ name, header: name, format: { type: 'text' as const } })) } : {}),
        },
        output: { kind: 'sandbox', root: spec.root, principal, conversationId, filename, onExisting: 'rename' },
      });
      // Warm the threads (module loading), as a running host's pool would be.
      const warm = (index: number): TableTask => ({ ...task(`warm-${index}.${format}`), selection: { sort: [], range: { start: 0, count: 10 } } });
      await Promise.all(Array.from({ length: spec.threads ?? 1 }, (_, index) => pool.run(format, warm(index))));
      const t0 = started();
      const copies = spec.kind === 'export-pair' ? 2 : 1;
      const results = await Promise.all(Array.from({ length: copies }, (_, index) => pool.run<TableResult>(format, task(`${spec.name}-${index}.${format}`))));
      const ms = stop(t0);
      await pool.close();
      return { ms, rows: results.reduce((sum, result) => sum + result.rows, 0), bytes: results[0]?.bytes ?? 0, maxRssMb: maxRss() };
    }
    case 'document': {
      const pool = new FilePool({ poolSize: 1, maxQueue: 8, taskTimeoutMs: 3_600_000 });
      const format = spec.format as 'docx' | 'pptx';
      const task = (count: number, filename: string): DocumentTask => ({
        spec: { title: 'Bench', blocks: [{ type: 'table', source: spec.source, selection: { sort: [], range: { start: 0, count } } }] },
        sources: { kind: 'sandbox', root: spec.root, principal, conversationId },
        output: { kind: 'sandbox', root: spec.root, principal, conversationId, filename, onExisting: 'rename' },
        maxTableRows: 1_000_000,
      });
      await pool.run(format, task(5, `warm.${format}`));
      const t0 = started();
      const result = await pool.run<DocumentResult>(format, task(spec.rows, `${spec.name}.${format}`));
      const ms = stop(t0);
      await pool.close();
      return { ms, rows: result.rows, bytes: result.bytes, maxRssMb: maxRss() };
    }
    case 'naive-csv': {
      const t0 = started();
      const out = path.join(outDir, `${spec.name}.csv`);
      const stream = createWriteStream(out);
      const write = async (line: string) => {
        if (!stream.write(line)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
      };
      const cell = (value: unknown) => {
        if (value === null || value === undefined) return '';
        const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
        return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
      };
      await write(`${columns.join(',')}\n`);
      const lines = createInterface({ input: createReadStream(sourceFile), crlfDelay: Infinity });
      let rows = 0;
      if (spec.sort) {
        const all: Record<string, unknown>[] = [];
        for await (const line of lines) if (line !== '') all.push(JSON.parse(line) as Record<string, unknown>);
        all.sort((a, b) => (b.amount as number) - (a.amount as number));
        for (const row of all) {
          await write(`${columns.map((column) => cell(row[column])).join(',')}\n`);
          rows += 1;
        }
      } else {
        for await (const line of lines) {
          if (line === '') continue;
          const row = JSON.parse(line) as Record<string, unknown>;
          await write(`${columns.map((column) => cell(row[column])).join(',')}\n`);
          rows += 1;
        }
      }
      stream.end();
      await new Promise<void>((resolve) => stream.once('close', () => resolve()));
      return { ms: stop(t0), rows, bytes: (await stat(out)).size, maxRssMb: maxRss() };
    }
    case 'raw-copy': {
      const from = spec.copyOf as string;
      const to = path.join(outDir, `${spec.name}.copy`);
      const t0 = started();
      await copyFile(from, to);
      return { ms: stop(t0), rows: spec.rows, bytes: (await stat(to)).size, maxRssMb: maxRss() };
    }
    case 'duckdb': {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      const out = path.join(outDir, `${spec.name}.csv`);
      const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
      const t0 = started();
      await connection.run(
        `COPY (SELECT * FROM read_json(${quote(sourceFile)}, format = 'newline_delimited')${spec.sort ? ' ORDER BY amount DESC' : ''}) TO ${quote(out)} (HEADER, DELIMITER ',')`,
      );
      const ms = stop(t0);
      connection.closeSync();
      instance.closeSync();
      return { ms, rows: spec.rows, bytes: (await stat(out)).size, maxRssMb: maxRss() };
    }
    case 'csv-rows': {
      // The general writer alone (rows from selectRows, one csvLine each): the CSV export before the transcoder.
      const { writeCsvByRows } = await import('../src/files/formats/csv-writer.js');
      const t0 = started();
      const result = await writeCsvByRows(
        {
          source: { kind: 'sandbox', root: spec.root, principal, conversationId, path: spec.source },
          selection: { sort: spec.sort ? [sortKey] : [] },
          output: { kind: 'sandbox', root: spec.root, principal, conversationId, filename: `${spec.name}.csv`, onExisting: 'rename' },
        },
        () => undefined,
      );
      return { ms: stop(t0), rows: result.rows, bytes: result.bytes, maxRssMb: maxRss() };
    }
    case 'parquet': {
      // export_table's Parquet path below the tool: the forked DuckDB child, its locks, memory limit and deadline.
      const { FilesSqlEngine } = await import('../src/analysis/files-sql-engine.js');
      const { selectionSql } = await import('../src/analysis/selection-sql.js');
      const { ConversationSandbox } = await import('../src/sandbox/index.js');
      const { parquetThreads } = await import('../src/tools/analysis/export-parquet.js');
      const engine = new FilesSqlEngine({ maxConcurrent: 1, maxWaiting: 1 });
      const sandbox = new ConversationSandbox(spec.root, conversationId, principal);
      const output = path.join(outDir, `${spec.name}.parquet`);
      const run = (select: string) =>
        engine.exportParquet({
          sandbox,
          select,
          source: sourceFile,
          output,
          timeoutMs: 3_600_000,
          memoryBytes: 536_870_912,
          threads: spec.threads ?? parquetThreads(1, 0),
        });
      const select = (rows?: number) =>
        selectionSql({ source: spec.source, ...(spec.sort ? { sort: sortKey } : {}), ...(rows === undefined ? {} : { range: { start: 0, count: rows } }) });
      await run(select(10));
      // A running host's engine has its spare child loaded before a call comes: wait for it (a private field, bench only).
      // The spare is unref'd (it must not keep a host alive): a timer keeps this process up meanwhile.
      const awake = setInterval(() => undefined, 1000);
      await (engine as unknown as { spare?: { ready: Promise<void> } }).spare?.ready;
      clearInterval(awake);
      const t0 = started();
      const rows = await run(select());
      const ms = stop(t0);
      engine.close();
      cpuSpentMs = null;
      return { ms, rows, bytes: (await stat(output)).size, maxRssMb: Number.NaN };
    }
    case 'duckdb-parquet': {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      const out = path.join(outDir, `${spec.name}.parquet`);
      const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
      const t0 = started();
      await connection.run(
        `COPY (SELECT * FROM read_json(${quote(sourceFile)}, format = 'newline_delimited')${spec.sort ? ' ORDER BY amount DESC' : ''}) TO ${quote(out)} (FORMAT parquet)`,
      );
      const ms = stop(t0);
      connection.closeSync();
      instance.closeSync();
      return { ms, rows: spec.rows, bytes: (await stat(out)).size, maxRssMb: maxRss() };
    }
    case 'bare-exceljs': {
      const ExcelJS = (await import('exceljs')).default;
      const rows = Array.from({ length: spec.rows }, (_, index) => columns.map((column) => syntheticRow(index)[column]));
      const out = path.join(outDir, `${spec.name}.xlsx`);
      const t0 = started();
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: out, useSharedStrings: false, useStyles: true });
      const sheet = workbook.addWorksheet('Data');
      sheet.addRow(columns).commit();
      for (const row of rows) sheet.addRow(row).commit();
      sheet.commit();
      await workbook.commit();
      return { ms: stop(t0), rows: spec.rows, bytes: (await stat(out)).size, maxRssMb: maxRss() };
    }
  }
}

let cpuAtStart: NodeJS.CpuUsage | undefined;
let cpuSpentMs: number | null | undefined;

/** Ends the timed section opened by started(): wall milliseconds, and the CPU time of all threads in it. */
function stop(t0: number): number {
  const ms = performance.now() - t0;
  if (cpuAtStart !== undefined && cpuSpentMs === undefined) {
    const spent = process.cpuUsage(cpuAtStart);
    cpuSpentMs = (spent.user + spent.system) / 1000;
  }
  return ms;
}

/** Peak RSS of this process so far. */
function maxRss(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

// ---------------------------------------------------------------- parent side

function inChild(spec: CaseSpec): CaseResult {
  const child = spawnSync(process.execPath, ['--expose-gc', thisFile, '--case', JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`bench case ${spec.name} failed: ${child.stderr || child.stdout}`);
  const line = child.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as CaseResult;
}

function fmt(result: CaseResult): string {
  const rate = result.rows / (result.ms / 1000);
  const cpu = result.cpuMs === undefined || result.cpuMs === null ? '' : ` (cpu ${(result.cpuMs / 1000).toFixed(2)} s)`;
  return `${(result.ms / 1000).toFixed(2).padStart(7)} s ${Math.round(rate).toLocaleString('en-US').padStart(10)} rows/s ${String(result.maxRssMb ?? '—').padStart(5)} MB peak RSS${cpu}`;
}

function line(label: string, result: CaseResult, baseline?: { label: string; result: CaseResult }): void {
  // A Parquet export runs in a forked DuckDB child: this process's CPU time and RSS are not its own (null).
  const cpuRatio = baseline?.result.cpuMs != null && result.cpuMs != null ? `, ${(baseline.result.cpuMs / result.cpuMs).toFixed(2)}× by CPU time` : '';
  const ratio = baseline === undefined ? '' : `  ${(baseline.result.ms / result.ms).toFixed(2)}× the speed of ${baseline.label}${cpuRatio}`;
  console.log(`  ${label.padEnd(34)} ${fmt(result)}${ratio}`);
}

export default async function exportBench(): Promise<void> {
  const sizes = (process.env.EXPORT_BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
  const formats = new Set((process.env.EXPORT_BENCH_FORMATS ?? 'csv,xlsx,parquet,documents').split(','));
  const root = await mkdtemp(path.join(tmpdir(), 'spillway-export-bench-'));
  try {
    console.log(
      `Node ${process.version}, ${process.platform}/${process.arch}; each case in its own process (peak RSS is the whole process: main thread + worker).`,
    );
    console.log('The machine is shared: figures are noisy (CPU time of the timed section, all threads, is shown beside wall time). Every case runs once.\n');
    for (const rows of sizes) {
      const source = await writeSource(root, rows);
      const sourceBytes = (await stat(path.join(root, principal, conversationId, source))).size;
      console.log(`### ${rows.toLocaleString('en-US')} rows × 10 columns (JSONL ${(sourceBytes / 1048576).toFixed(1)} MiB)`);
      const base = { root, source, rows };
      for (const sort of [false, true]) {
        const tag = sort ? 'sorted by amount desc' : 'no sort';
        if (formats.has('parquet')) {
          console.log(`Parquet, ${tag}:`);
          const parquet = inChild({ ...base, name: `parquet-${rows}-${sort}`, kind: 'parquet', sort });
          const duckParquet = inChild({ ...base, name: `duck-parquet-${rows}-${sort}`, kind: 'duckdb-parquet', sort });
          line('export_table parquet', parquet, { label: 'DuckDB', result: duckParquet });
          line('DuckDB COPY … TO parquet', duckParquet);
        }
        if (formats.has('csv')) {
          console.log(`CSV, ${tag}:`);
          const csv = inChild({ ...base, name: `csv-${rows}-${sort}`, kind: 'export', format: 'csv', sort });
          const naive = inChild({ ...base, name: `naive-${rows}-${sort}`, kind: 'naive-csv', sort });
          const duck = inChild({ ...base, name: `duck-${rows}-${sort}`, kind: 'duckdb', sort });
          const general = inChild({ ...base, name: `rows-${rows}-${sort}`, kind: 'csv-rows', sort });
          line('export_table csv', csv, { label: 'naive', result: naive });
          line('general writer (before), in-process', general, { label: 'DuckDB', result: duck });
          line('naive readline+JSON.parse+join', naive);
          line('DuckDB COPY … TO csv', duck);
          console.log(
            `  export_table csv speed / DuckDB's: ${(duck.ms / csv.ms).toFixed(2)}× wall, ${((duck.cpuMs ?? 0) / (csv.cpuMs ?? 1)).toFixed(2)}× by CPU time (goal ≥ 0.8)`,
          );
          if (!sort) {
            const copy = inChild({
              ...base,
              name: `copy-${rows}`,
              kind: 'raw-copy',
              copyOf: path.join(root, principal, conversationId, 'outputs', `csv-${rows}-${sort}-0.csv`),
            });
            line(`raw copy of ${(csv.bytes / 1048576).toFixed(1)} MiB (the limit)`, copy);
          }
        }
        // At 1M rows the sorted XLSX and the bare-exceljs baseline (which builds 1M rows in memory first)
        // take minutes on a shared machine: EXPORT_BENCH_FULL=1 runs them too.
        const full = rows < 1_000_000 || process.env.EXPORT_BENCH_FULL === '1';
        if ((sort && !full) || !formats.has('xlsx')) continue;
        console.log(`XLSX, ${tag}:`);
        const xlsx = inChild({ ...base, name: `xlsx-${rows}-${sort}`, kind: 'export', format: 'xlsx', sort });
        line('export_table xlsx', xlsx);
        if (!sort && rows === 100_000) {
          // Column formats: five of the ten columns get a number or date format (dates become date cells).
          const plain = inChild({ ...base, name: `xlsx-plain-${rows}`, kind: 'export', format: 'xlsx', plain: true });
          line('export_table xlsx, every column text', plain);
          console.log(`  formatting cost: ${(((xlsx.ms - plain.ms) / plain.ms) * 100).toFixed(0)}% of the plain export (goal ≤ 15%)`);
        }
        if (!sort && full) {
          const bare = inChild({ ...base, name: `bare-${rows}`, kind: 'bare-exceljs' });
          line('bare exceljs from memory', bare);
          console.log(`  export_table xlsx time / bare exceljs time: ${(xlsx.ms / bare.ms).toFixed(2)} (goal ≤ 1.3)`);
        }
      }
      if (rows === 100_000 && formats.has('xlsx')) {
        console.log('Two exports at once (XLSX, no sort):');
        const one = inChild({ ...base, name: 'pool-one', kind: 'export', format: 'xlsx', threads: 1 });
        const two = inChild({ ...base, name: 'pool-two', kind: 'export-pair', format: 'xlsx', threads: 2 });
        line('1 export, 1-thread pool', one);
        line('2 exports, 2-thread pool', two);
        console.log(`  throughput ratio (2 on 2 threads / 1 on 1): ${(two.rows / two.ms / (one.rows / one.ms)).toFixed(2)} (goal ≥ 1.7)`);
      }
      console.log('');
    }
    if (!formats.has('documents')) return;
    const docSource = sizes.includes(10_000) ? `results/${String(10_000).padStart(7, '0')}-bench.jsonl` : await writeSource(root, 10_000);
    console.log('### Documents (one table of 10 columns)');
    for (const format of ['docx', 'pptx'] as const) {
      for (const rows of [2_000, 10_000]) {
        const result = inChild({ root, source: docSource, rows, name: `${format}-${rows}`, kind: 'document', format });
        line(`${format} ${rows.toLocaleString('en-US')} rows (${(result.bytes / 1024).toFixed(0)} KiB)`, result);
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === thisFile && process.argv[2] === '--case') {
  const spec = JSON.parse(process.argv[3] ?? '{}') as CaseSpec;
  runCase(spec).then(
    (result) => {
      process.stdout.write(`${JSON.stringify({ ...result, cpuMs: cpuSpentMs })}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
