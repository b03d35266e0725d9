import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { demoAccountCount, generateAccounts, generateTransactions, SeededRandom } from './demo-data.js';
import { demoFileName } from './demo-file.js';

/** Bumped whenever the demo schema or generator changes, so older files are rebuilt. */
export const demoSchemaVersion = 3;

export { demoFileName } from './demo-file.js';

export interface DemoDatabaseOptions {
  /** The data folder (config.data.dir). */
  dir: string;
  /** Transactions to generate (config.demo.rows). */
  rows: number;
  /** Generator seed (config.demo.seed). */
  seed: number;
  logger?: Logger;
}

export interface DemoDatabase {
  file: string;
  /** True when this call built the file (first start, a changed seed, or a damaged file). */
  created: boolean;
  transactions: number;
  accounts: number;
  buildMs?: number;
}

const schema = `
CREATE TABLE accounts (
  account_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  country TEXT NOT NULL,
  opened TEXT NOT NULL,
  risk_score INTEGER NOT NULL
);
CREATE TABLE transactions (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  account_id TEXT NOT NULL REFERENCES accounts(account_id),
  merchant TEXT NOT NULL,
  category TEXT NOT NULL,
  country TEXT NOT NULL,
  amount REAL NOT NULL,
  currency TEXT NOT NULL,
  channel TEXT NOT NULL,
  label TEXT NOT NULL CHECK (label IN ('fraud', 'genuine')),
  note TEXT
);
CREATE TABLE demo_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Built after the rows are in: one sort per index instead of a b-tree update per row. */
const indexes = `
CREATE INDEX transactions_account ON transactions(account_id);
CREATE INDEX transactions_label ON transactions(label);
CREATE INDEX transactions_ts ON transactions(ts);
`;

/**
 * Makes sure the demo database exists in the data folder and matches the
 * configured seed and size; builds it when it is missing, damaged, half
 * built or generated from other settings. Idempotent and cheap when the file
 * is already right (one read-only open and a few reads).
 *
 * The file is built under a temporary name and renamed into place, so a
 * crash never leaves a half-built database under the real name, and two
 * processes starting at once both end with the same complete file.
 */
export function ensureDemoDatabase(options: DemoDatabaseOptions): DemoDatabase {
  const file = path.join(options.dir, demoFileName);
  const accounts = demoAccountCount(options.rows);
  const existing = inspectDemoDatabase(file);
  if (existing.ok && existing.seed === options.seed && existing.transactions === options.rows) {
    return { file, created: false, transactions: options.rows, accounts };
  }
  if (existing.reason !== 'missing') options.logger?.warn({ file, reason: existing.reason }, 'demo database is unusable or outdated; rebuilding it');
  const started = performance.now();
  buildDemoDatabase({ ...options, file });
  const buildMs = Math.round(performance.now() - started);
  options.logger?.info({ file, transactions: options.rows, accounts, buildMs }, 'demo database built');
  return { file, created: true, transactions: options.rows, accounts, buildMs };
}

/** `quickChecked`: SQLite's quick_check read the file this time (it had changed since its last check). */
type Inspection = { ok: true; seed: number; transactions: number; quickChecked: boolean; reason?: undefined } | { ok: false; reason: string };

/** Reads the finished-marker of an existing demo file without changing it. */
export function inspectDemoDatabase(file: string): Inspection {
  if (!existsSync(file)) return { ok: false, reason: 'missing' };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== demoSchemaVersion) return { ok: false, reason: `schema version ${version}, expected ${demoSchemaVersion}` };
    const meta = new Map((db.prepare('SELECT key, value FROM demo_meta').all() as { key: string; value: string }[]).map((row) => [row.key, row.value]));
    if (meta.get('finished') !== 'yes') return { ok: false, reason: 'not finished' };
    const count = (db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n;
    if (String(count) !== meta.get('transactions')) return { ok: false, reason: `holds ${count} transactions, its marker says ${meta.get('transactions')}` };
    // Taken before the check: a file changed while it is read is read again next time.
    const identity = identityOf(file);
    const quickChecked = !checkedAs(file, identity);
    if (quickChecked) {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') return { ok: false, reason: `quick_check: ${String(check)}` };
      recordChecked(file, identity);
    }
    return { ok: true, seed: Number(meta.get('seed')), transactions: count, quickChecked };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_CANTOPEN') return { ok: false, reason: 'missing' };
    return { ok: false, reason: `${code ?? 'error'}: ${(error as Error).message}` };
  } finally {
    db?.close();
  }
}

/**
 * Where the identity of the demo file is kept as it was when it last passed SQLite's
 * quick_check (or was built): a read of every page, ~40 ms of each `spillway call` here,
 * repeated only when the file is no longer that file.
 */
const checkedStampOf = (file: string) => `${file}.checked`;

/** Device, inode, size and change times: any write, truncation, replacement or `touch` changes one of them. */
function identityOf(file: string): string {
  const stats = statSync(file, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** Whether the stamp beside `file` records this identity. */
function checkedAs(file: string, identity: string): boolean {
  try {
    return readFileSync(checkedStampOf(file), 'utf8') === identity;
  } catch {
    return false;
  }
}

/** Best effort: without the stamp (a read-only data folder) the next start checks again. */
function recordChecked(file: string, identity: string): void {
  try {
    writeFileSync(checkedStampOf(file), identity, { mode: 0o600 });
  } catch {
    // checked again next time
  }
}

/** Half-built files a crashed build left behind (an hour is far longer than any build takes). */
function removeStaleBuilds(file: string): void {
  const prefix = `${path.basename(file)}.building-`;
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const full = path.join(dir, name);
    try {
      if (Date.now() - statSync(full).mtimeMs > 3_600_000) rmSync(full, { force: true });
    } catch {
      // another process finished or removed it
    }
  }
}

function buildDemoDatabase(options: DemoDatabaseOptions & { file: string }): void {
  try {
    mkdirSync(options.dir, { recursive: true });
  } catch (error) {
    throw new SpillwayError(
      'SQL_SOURCE_UNAVAILABLE',
      `Cannot create the data folder ${options.dir} for the demo database: ${(error as Error).message}. Set data.dir to a writable folder.`,
      {
        dir: options.dir,
      },
    );
  }
  removeStaleBuilds(options.file);
  const temporary = `${options.file}.building-${process.pid}-${Date.now()}`;
  let db: Database.Database | undefined;
  try {
    db = new Database(temporary);
    // Nothing reads the file until it is renamed into place, so durability
    // during the build buys nothing; the rename happens after a clean close.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(schema);
    const random = new SeededRandom(options.seed);
    const accounts = generateAccounts(random, demoAccountCount(options.rows));
    const insertAccount = db.prepare('INSERT INTO accounts (account_id, name, country, opened, risk_score) VALUES (?, ?, ?, ?, ?)');
    const insertTransaction = db.prepare(
      'INSERT INTO transactions (id, ts, account_id, merchant, category, country, amount, currency, channel, label, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertMeta = db.prepare('INSERT INTO demo_meta (key, value) VALUES (?, ?)');
    const fill = db.transaction(() => {
      for (const account of accounts) insertAccount.run(account.account_id, account.name, account.country, account.opened, account.risk_score);
      for (const row of generateTransactions(random, accounts, options.rows)) {
        insertTransaction.run(
          row.id,
          row.ts,
          row.account_id,
          row.merchant,
          row.category,
          row.country,
          row.amount,
          row.currency,
          row.channel,
          row.label,
          row.note,
        );
      }
      db?.exec(indexes);
      insertMeta.run('seed', String(options.seed));
      insertMeta.run('transactions', String(options.rows));
      insertMeta.run('accounts', String(accounts.length));
      insertMeta.run('finished', 'yes');
    });
    fill();
    db.pragma(`user_version = ${demoSchemaVersion}`);
    db.close();
    db = undefined;
    renameSync(temporary, options.file);
    // Built here and renamed whole: as sound as a file that has just passed quick_check.
    recordChecked(options.file, identityOf(options.file));
  } catch (error) {
    db?.close();
    rmSync(temporary, { force: true });
    if (SpillwayError.is(error)) throw error;
    throw new SpillwayError(
      'SQL_SOURCE_UNAVAILABLE',
      `Building the demo database at ${options.file} failed: ${(error as Error).message}. Check that data.dir is writable and has space.`,
      {
        file: options.file,
      },
    );
  }
}
