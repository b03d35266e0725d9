// Reading a CSV table: spillway's streaming reader (csv-parse fed 1 MiB chunks, rows as
// objects with typed cells) against csv-parse's own synchronous parse of the whole text
// (arrays of strings, everything in memory): the floor for this parser. CPU time, median of
// five interleaved rounds. `npm run bench -- csv-read`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { openTableSource } from '../src/files/sources/table-source.js';

const rowCount = Number(process.env.CSV_BENCH_ROWS ?? 200_000);
const rounds = 5;

function cpuMs<T>(run: () => T): { value: T; ms: number } {
  const start = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(start);
  return { value, ms: (used.user + used.system) / 1000 };
}

async function cpuMsAsync(run: () => Promise<number>): Promise<{ value: number; ms: number }> {
  const start = process.cpuUsage();
  const value = await run();
  const used = process.cpuUsage(start);
  return { value, ms: (used.user + used.system) / 1000 };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export default async function csvReadBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-csv-bench-'));
  try {
    const file = path.join(dir, 'rows.csv');
    let text = 'id,name,amount,note,ts\r\n';
    for (let index = 0; index < rowCount; index += 1) {
      text += `${index},name ${index},${(index * 1.37).toFixed(2)},"a note, with a comma and ""quotes"" ${index}",2026-01-01T00:00:${String(index % 60).padStart(2, '0')}Z\r\n`;
    }
    await writeFile(file, text);
    const floor: number[] = [];
    const reader: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const parsed = cpuMs(() => (parse(text, { relax_quotes: true, relax_column_count: true }) as unknown[]).length - 1);
      floor.push(parsed.ms);
      const read = await cpuMsAsync(async () => {
        const source = await openTableSource({ kind: 'local', path: file });
        let rows = 0;
        try {
          for await (const batch of source.batches()) rows += batch.length;
        } finally {
          await source.close();
        }
        return rows;
      });
      if (read.value !== rowCount || parsed.value !== rowCount) throw new Error(`row counts differ: ${read.value}, ${parsed.value}, ${rowCount}`);
      reader.push(read.ms);
    }
    const mib = (Buffer.byteLength(text) / 1024 / 1024).toFixed(1);
    console.log('| rows | MiB | csv-parse sync (floor) CPU ms | spillway reader CPU ms | reader/floor |');
    console.log('|---|---|---|---|---|');
    console.log(`| ${rowCount} | ${mib} | ${median(floor).toFixed(0)} | ${median(reader).toFixed(0)} | ${(median(reader) / median(floor)).toFixed(2)}× |`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
