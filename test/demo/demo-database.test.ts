import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { open, mkdtemp, readFile, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ensureDemoDatabase, inspectDemoDatabase } from '../../src/demo/demo-database.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-demo-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function dump(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const hash = createHash('sha256');
    for (const table of ['accounts', 'transactions']) {
      for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY 1`).raw().iterate()) hash.update(JSON.stringify(row));
    }
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

test('the demo database is deterministic: the same seed gives the same data, another seed other data', async (t) => {
  const [a, b, c] = [await tempDir(t), await tempDir(t), await tempDir(t)];
  const first = ensureDemoDatabase({ dir: a, rows: 5000, seed: 42 });
  const second = ensureDemoDatabase({ dir: b, rows: 5000, seed: 42 });
  const third = ensureDemoDatabase({ dir: c, rows: 5000, seed: 43 });
  assert.equal(dump(first.file), dump(second.file));
  assert.notEqual(dump(first.file), dump(third.file));
});

test('the demo data has the documented shape', async (t) => {
  const dir = await tempDir(t);
  const demo = ensureDemoDatabase({ dir, rows: 20_000, seed: 20261130 });
  const db = new Database(demo.file, { readonly: true });
  t.after(() => db.close());
  const columns = (table: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((column) => column.name);
  assert.deepEqual(columns('transactions'), ['id', 'ts', 'account_id', 'merchant', 'category', 'country', 'amount', 'currency', 'channel', 'label', 'note']);
  assert.deepEqual(columns('accounts'), ['account_id', 'name', 'country', 'opened', 'risk_score']);
  const facts = db
    .prepare(
      `SELECT count(*) AS n, min(id) AS first, max(id) AS last,
              sum(label = 'fraud') AS fraud, sum(label NOT IN ('fraud', 'genuine')) AS other,
              sum(substr(note, 1, 1) IN ('=', '+', '-', '@')) AS formula,
              sum(ts NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z') AS badTs,
              sum(account_id NOT IN (SELECT account_id FROM accounts)) AS orphans
       FROM transactions`,
    )
    .get() as Record<string, number>;
  assert.equal(facts.n, 20_000);
  assert.equal(facts.first, 1);
  assert.equal(facts.last, 20_000);
  assert.equal(facts.other, 0);
  assert.equal(facts.badTs, 0);
  assert.equal(facts.orphans, 0);
  assert.ok((facts.fraud ?? 0) > 100 && (facts.fraud ?? 0) < 1000, `fraud rows: ${facts.fraud}`);
  // About 1% of notes start like a spreadsheet formula.
  assert.ok((facts.formula ?? 0) > 100 && (facts.formula ?? 0) < 300, `formula-like notes: ${facts.formula}`);
});

test('the default seed gives the 321 large fraud transactions the walkthrough shows', async (t) => {
  const dir = await tempDir(t);
  const demo = ensureDemoDatabase({ dir, rows: 50_000, seed: 20261130 });
  const db = new Database(demo.file, { readonly: true });
  t.after(() => db.close());
  assert.equal(db.prepare("SELECT count(*) FROM transactions WHERE label = 'fraud' AND amount >= 200").pluck().get(), 321);
});

test('ensuring is idempotent: an intact file is left alone', async (t) => {
  const dir = await tempDir(t);
  const first = ensureDemoDatabase({ dir, rows: 1000, seed: 5 });
  assert.equal(first.created, true);
  const before = await stat(first.file);
  const bytes = await readFile(first.file);
  const second = ensureDemoDatabase({ dir, rows: 1000, seed: 5 });
  assert.equal(second.created, false);
  assert.equal((await stat(first.file)).mtimeMs, before.mtimeMs);
  assert.deepEqual(await readFile(first.file), bytes);
  // Another seed or size is another database: rebuilt.
  assert.equal(ensureDemoDatabase({ dir, rows: 1000, seed: 6 }).created, true);
});

test('a corrupt, half-built or unfinished demo file is rebuilt', async (t) => {
  const dir = await tempDir(t);
  const { file } = ensureDemoDatabase({ dir, rows: 3000, seed: 9 });
  const expected = dump(file);

  await writeFile(file, 'garbage, not SQLite '.repeat(500));
  assert.equal(ensureDemoDatabase({ dir, rows: 3000, seed: 9 }).created, true);
  assert.equal(dump(file), expected);

  await truncate(file, Math.floor((await stat(file)).size / 2));
  assert.equal(ensureDemoDatabase({ dir, rows: 3000, seed: 9 }).created, true);
  assert.equal(dump(file), expected);

  const db = new Database(file);
  db.prepare("DELETE FROM demo_meta WHERE key = 'finished'").run();
  db.close();
  assert.equal(ensureDemoDatabase({ dir, rows: 3000, seed: 9 }).created, true);
  assert.equal(dump(file), expected);
});

test('quick_check reads the whole file only when it changed since its last check or build; damage in place is still found', async (t) => {
  const dir = await tempDir(t);
  const { file } = ensureDemoDatabase({ dir, rows: 3000, seed: 9 });
  const expected = dump(file);
  const quickChecked = () => {
    const inspection = inspectDemoDatabase(file);
    assert.equal(inspection.ok, true, inspection.reason);
    return inspection.ok && inspection.quickChecked;
  };
  assert.equal(quickChecked(), false, 'a file this process just built is not read again');
  const now = new Date();
  await utimes(file, now, now);
  assert.equal(quickChecked(), true, 'touched: checked');
  assert.equal(quickChecked(), false, 'unchanged since that check');
  await rm(`${file}.checked`);
  assert.equal(quickChecked(), true, 'no record of a check: checked');

  // A page in the middle overwritten, the size unchanged: found, and the file rebuilt.
  const { size } = await stat(file);
  const handle = await open(file, 'r+');
  await handle.write(Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(size / 2 / 4096) * 4096);
  await handle.close();
  assert.equal((await stat(file)).size, size);
  assert.equal(ensureDemoDatabase({ dir, rows: 3000, seed: 9 }).created, true);
  assert.equal(dump(file), expected);
  assert.equal(quickChecked(), false, 'rebuilt, so not read again');
});
