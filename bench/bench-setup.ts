/**
 * What every in-process bench starts from: a configuration in a temp folder
 * (sandbox, data, a silent log, no environment), and the tables they spill.
 */
import path from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import type { Config } from '../src/config/schema.js';

/** The configuration of a bench host under `dir`, with the bench's own keys on top. */
export function benchConfig(dir: string, overrides: Record<string, unknown> = {}): Config {
  return loadConfig({
    env: {},
    overrides: { sandbox: { root: path.join(dir, 'sandbox') }, data: { dir: path.join(dir, 'data') }, log: { level: 'silent' }, ...overrides },
  });
}

/** ASCII log lines, or the JSON text of a 10-column table, of about `bytes` bytes. */
export function makeBenchInput(kind: 'text' | 'table', bytes: number): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i += 1) {
    const part =
      kind === 'text'
        ? `2026-11-30T08:${String(i % 60).padStart(2, '0')}:00.000Z INFO worker-${i % 8} processed order ${100000 + i} in ${i % 997} ms\n`
        : JSON.stringify({
            id: i + 1,
            name: `item-${i + 1}`,
            amount: Math.round((i * 37.13) % 1000) / 10,
            active: i % 3 === 0,
            region: ['north', 'south', 'east', 'west'][i % 4],
            qty: i % 50,
            sku: `SKU-${(i * 7919) % 100000}`,
            created: '2026-11-30T08:00:00.000Z',
            score: (i % 101) / 7,
            note: `libpthread.so.0 row ${i}`,
          });
    parts.push(part);
    size += Buffer.byteLength(part) + (kind === 'table' ? 1 : 0);
  }
  return kind === 'text' ? parts.join('') : `[${parts.join(',')}]`;
}
