import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { parse } from 'csv-parse/sync';
import JSZip from 'jszip';
import type { ExecuteResult } from '../../src/host/host.js';
import { renderUnavailable } from '../helpers/render.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

/** A temporary host whose spill threshold is 1 character, so even tiny test tables spill to JSONL. */
export function filesHost(overrides: Record<string, unknown> = {}, options: Parameters<typeof tempHost>[1] = {}): Promise<TempHost> {
  return tempHost({ spill: { thresholdChars: 1, tools: {} }, ...overrides }, options);
}

let toolCounter = 0;

/** Spills `rows` as a tool result in a conversation (through the real spill pipeline) and returns the spill path. */
export async function spillRows(env: TempHost, rows: unknown[], conversationId = 'c1'): Promise<string> {
  toolCounter += 1;
  const tool = `rows_${toolCounter}`;
  env.host.registerTool({ name: tool, description: tool, inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const result = await env.host.execute({ name: tool, arguments: {} }, { conversationId });
  if (result.spill?.format !== 'jsonl') throw new Error(`rows did not spill as JSONL: ${result.text.slice(0, 200)}`);
  return result.spill.path;
}

export async function call(env: TempHost, name: string, args: Record<string, unknown>, conversationId = 'c1'): Promise<ExecuteResult> {
  return env.host.execute({ name, arguments: args }, { conversationId });
}

/** A successful file tool result's value, or a thrown error with the tool's text. */
export function ok(result: ExecuteResult): Record<string, unknown> & { path: string; rows?: number; notes?: string[] } {
  if (result.isError) throw new Error(`expected success, got: ${result.text}`);
  return result.value as Record<string, unknown> & { path: string; rows?: number; notes?: string[] };
}

export function outputPath(env: TempHost, relative: string, conversationId = 'c1'): string {
  return path.join(env.host.sandbox.conversation(conversationId).dir, relative);
}

/** Parses a CSV output with csv-parse (an independent reader): an array of records of strings. */
export async function readCsv(file: string): Promise<string[][]> {
  return parse(await readFile(file), { bom: true, relax_column_count: false }) as string[][];
}

export async function zipText(file: string, entry: string): Promise<string> {
  const zip = await JSZip.loadAsync(await readFile(file));
  const member = zip.file(entry);
  if (member === null) throw new Error(`${entry} missing from ${file}; entries: ${Object.keys(zip.files).join(', ')}`);
  return member.async('string');
}

export async function zipEntries(file: string): Promise<string[]> {
  const zip = await JSZip.loadAsync(await readFile(file));
  return Object.keys(zip.files);
}

/** Unescapes the five XML entities (text extracted from OOXML). */
export function xmlUnescape(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&amp;/g, '&');
}

type Row = Record<string, unknown>;
interface Spec {
  columns?: string[];
  sort?: { column: string; direction?: 'asc' | 'desc' }[];
  range?: { start: number; count?: number };
}

/**
 * The selection a test expects, computed independently of the code under test:
 * a plain stable sort where numbers compare numerically, text by code units,
 * and null/missing values always come last.
 */
export function expectedSelection(rows: Row[], spec: Spec): unknown[][] {
  const columns = spec.columns ?? Object.keys(rows[0] ?? {});
  const indexed = rows.map((row, index) => ({ row, index }));
  const typeOrder = (value: unknown) => (typeof value === 'number' ? 0 : typeof value === 'string' ? 1 : typeof value === 'boolean' ? 2 : 3);
  indexed.sort((a, b) => {
    for (const key of spec.sort ?? []) {
      const x = a.row[key.column] ?? null;
      const y = b.row[key.column] ?? null;
      if (x === null && y === null) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      let order = typeOrder(x) - typeOrder(y);
      if (order === 0) order = typeof x === 'number' ? x - (y as number) : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
      if (order !== 0) return key.direction === 'desc' ? -order : order;
    }
    return a.index - b.index;
  });
  const start = spec.range?.start ?? 0;
  const end = spec.range?.count === undefined ? undefined : start + spec.range.count;
  return indexed.slice(start, end).map(({ row }) => columns.map((column) => (Object.hasOwn(row, column) ? (row[column] ?? null) : null)));
}

/** Spaces, controls and invisible format characters that may stand unseen before a formula (formula-guard.ts). */
export function hiddenBeforeFormula(code: number): boolean {
  if (code <= 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0x1680 || (code >= 0x2000 && code <= 0x200f)) return true;
  if (code === 0x2028 || code === 0x2029 || (code >= 0x202a && code <= 0x202f) || code === 0x205f || (code >= 0x2060 && code <= 0x206f)) return true;
  if (code === 0x3000 || code === 0xfeff || code === 0xad || code === 0x34f || code === 0x61c || code === 0x180e) return true;
  if (code === 0x115f || code === 0x1160 || code === 0x17b4 || code === 0x17b5 || code === 0x3164 || code === 0xffa0) return true;
  return (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0000 && code <= 0xe007f);
}

/** Whether a trigger (= + - @ TAB CR or a look-alike) comes before anything visible. */
export function startsFormulaAfterHidden(text: string): boolean {
  for (const char of text) {
    if ('=+-@\t\r＝＋－＠﹦﹢﹣﹫'.includes(char)) return true;
    if (!hiddenBeforeFormula(char.codePointAt(0) as number)) return false;
  }
  return false;
}

/** How a value appears in a CSV export: numbers as written by JS, text with the formula guard, JSON for nested values. */
export function csvText(value: unknown): string {
  if (value === null || value === undefined) return '';
  // The guard: = + - @ TAB CR and their full-width look-alikes, after any run of spaces and invisible characters
  // (formula-guard.ts), except text that starts with + or - and holds no call, reference or DDE link (signed-text.ts).
  if (typeof value === 'string') {
    const signedPlain = /^[+-]/.test(value) && !/\w\s*\(|[|!]|(^|[^A-Za-z])[A-Za-z]{1,3}\$?\d/.test(value.slice(1));
    return !signedPlain && startsFormulaAfterHidden(value) ? `'${value}` : value;
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A files host and a folder for the PDFs of a render test, both removed when the test ends;
 * undefined (and the test skipped, saying why) when LibreOffice, poppler or a needed font is missing.
 */
export async function renderHost(
  t: TestContext,
  prefix: string,
  alsoMissing: () => string | undefined = () => undefined,
): Promise<{ env: TempHost; pdfDir: string } | undefined> {
  const missing = renderUnavailable() ?? alsoMissing();
  if (missing !== undefined) {
    t.skip(missing);
    return undefined;
  }
  const env = await filesHost();
  const pdfDir = await mkdtemp(path.join(tmpdir(), prefix));
  t.after(() => Promise.all([env.cleanup(), rm(pdfDir, { recursive: true, force: true })]));
  return { env, pdfDir };
}
