// Token economy: what reaches the model and what the model must write, with
// spillway and without it. Each scenario is replayed through a real host (the
// real query_sql, spill rules, export_table, call_with_args_file where they are
// registered) and counted with a real tokenizer (gpt-tokenizer, o200k_base).
// The naive host is the baseline: every result inline in full, and the model
// retypes the rows or bodies as arguments of a file-writing or upstream tool.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { demoQuery } from '../src/demo/run-demo.js';
import { createHost } from '../src/runtime/create-host.js';
import type { ExecuteResult, Host } from '../src/host/host.js';
import type { ToolContext, ToolDefinition } from '../src/host/tool.js';
import { benchConfig } from './bench-setup.js';

/** A single response longer than this cannot be written by many current models. */
const outputLimit = 128_000;
/** Output speed observed in production (75–90 tokens/s), for the writing-time column. */
const tokensPerSecond = 80;

interface Tally {
  read: number;
  written: number;
  /** The largest single call the model had to write. */
  largestCall: number;
  calls: number;
}

function newTally(): Tally {
  return { read: 0, written: 0, largestCall: 0, calls: 0 };
}

/** What the model writes for one call: the tool name and its JSON arguments. */
function charge(tally: Tally, tool: string, args: unknown): void {
  const tokens = countTokens(tool) + countTokens(JSON.stringify(args));
  tally.written += tokens;
  tally.largestCall = Math.max(tally.largestCall, tokens);
  tally.calls += 1;
}

/** One call through the real host, charging what the model writes and reads. */
async function call(host: Host, tally: Tally, conversationId: string, tool: string, args: Record<string, unknown>): Promise<ExecuteResult> {
  charge(tally, tool, args);
  const result = await host.execute({ name: tool, arguments: args }, { conversationId });
  tally.read += countTokens(result.text);
  // Figures from failed calls would flatter nobody: stop instead.
  if (result.isError) throw new Error(`${tool} failed in the spillway path: ${result.text.slice(0, 500)}`);
  return result;
}

function csvOf(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const quote = (value: unknown) => {
    const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns.join(','), ...rows.map((row) => columns.map((column) => quote(row[column])).join(','))].join('\n');
}

/** Stand-ins for tools another part of spillway provides, used only when that tool is not registered in this build. */
function standIn(name: string, answer: (args: Record<string, unknown>, context: ToolContext) => unknown): ToolDefinition {
  return {
    name,
    description: `stand-in for ${name}`,
    inputSchema: { type: 'object', additionalProperties: true },
    spill: false,
    handler: async (args, context) => ({ value: await answer(args, context) }),
  };
}

function crashReport(index: number, chars: number): string {
  const frames: string[] = [`Crash report ${index + 1}: SIGSEGV in worker thread, os_thr_id@entry=${232155 + index}`, ''];
  let frame = 0;
  while (frames.join('\n').length < chars) {
    frames.push(
      `#${frame} 0x00007f3a${(0x1000 + frame * 97 + index).toString(16)} in pthread_cond_wait@@GLIBC_2.3.2 () from /lib/x86_64-linux-gnu/libpthread.so.0`,
    );
    frames.push(`    at app::scheduler::Queue::pop (queue.rs:${120 + frame}) frame=${frame} state=waiting`);
    frame += 1;
  }
  return frames.join('\n').slice(0, chars);
}

interface Row {
  scenario: string;
  path: 'spillway' | 'naive';
  tally: Tally;
  note?: string;
}

export default async function tokensBench(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-bench-tokens-'));
  const config = benchConfig(dir, { policy: { default: 'allow', upstreamDefault: 'allow', rules: {} } });
  const host = await createHost({ config });
  const standIns: string[] = [];
  const ensure = (tool: ToolDefinition) => {
    if (host.getTool(tool.name) !== undefined) return;
    host.registerTool(tool);
    standIns.push(tool.name);
  };
  ensure(
    standIn('export_table', (args) => ({
      message: `Exported rows from ${String(args.source)} to outputs/${String(args.filename)}.`,
      path: `outputs/${String(args.filename)}`,
    })),
  );
  ensure(
    standIn('write_file', async (args, context) => {
      await context.sandbox.writeFile(String(args.path), String(args.content), { folders: ['args', 'scripts'], overwrite: true });
      return { message: `Wrote ${String(args.path)}.`, path: args.path };
    }),
  );
  ensure(standIn('call_with_args_file', (args) => ({ message: `Called ${String(args.tool)} with ${String(args.argsPath)} and overrides.`, number: 1 })));

  // An upstream-like tool that returns a 2 MB JSON list as MCP text, and one that takes bodies as arguments.
  const issues = Array.from({ length: 5_200 }, (_, index) => ({
    number: index + 1,
    title: `Worker pool stalls after reconnect #${index + 1}`,
    state: index % 3 === 0 ? 'closed' : 'open',
    author: `user-${(index * 7919) % 503}`,
    labels: index % 2 === 0 ? ['bug', 'scheduler'] : ['question'],
    created_at: new Date(Date.UTC(2026, 0, 1) + index * 3_600_000).toISOString(),
    comments: (index * 31) % 17,
    body: `Since 1.${index % 40} the pool stops taking tasks after the upstream reconnects. Steps: start, kill the upstream, wait ${index % 60} s. Expected: tasks resume. Actual: queue grows; libpthread.so.0 frames in the dump.`,
  }));
  const issueListText = JSON.stringify(issues);
  host.registerTool({
    name: 'tracker__list_issues',
    description: 'upstream stand-in: lists issues as JSON text',
    inputSchema: { type: 'object' },
    origin: { upstream: 'tracker' },
    handler: () => ({ mcp: { content: [{ type: 'text', text: issueListText }] } }),
  });
  const delivered: string[] = [];
  const bodies = Array.from({ length: 13 }, (_, index) => crashReport(index, index < 12 ? 6_900 : 89_337 - 12 * 6_900));
  host.registerTool({
    name: 'crashes__get_reports',
    description: 'stand-in: the crash reports a playbook works on',
    inputSchema: { type: 'object' },
    handler: () => ({ value: bodies.map((body, index) => ({ id: `CR-${index + 1}`, body })) }),
  });
  host.registerTool({
    name: 'tracker__create_issue',
    description: 'upstream stand-in: files an issue',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' }, title: { type: 'string' }, body: { type: 'string' }, labels: { type: 'array' } } },
    origin: { upstream: 'tracker' },
    handler: (args) => {
      delivered.push(String(args.body));
      return { value: { number: 1000 + delivered.length, url: `https://tracker.invalid/acme/app/issues/${1000 + delivered.length}` } };
    },
  });

  const rows: Row[] = [];
  const started = performance.now();
  try {
    // 1. The 321-row query exported to CSV.
    {
      const spillway = newTally();
      const query = await call(host, spillway, 's1', 'query_sql', { sql: demoQuery, label: 'fraud of 200 or more' });
      const source = query.spill?.path ?? '';
      await call(host, spillway, 's1', 'export_table', { source, format: 'csv', filename: 'fraud-200-plus.csv' });
      const naive = newTally();
      charge(naive, 'query_sql', { sql: demoQuery });
      const value = query.value as { rows: Record<string, unknown>[] };
      naive.read += countTokens(JSON.stringify(value));
      charge(naive, 'write_file', { path: 'fraud-200-plus.csv', content: csvOf(value.rows) });
      naive.read += countTokens('{"message":"Wrote fraud-200-plus.csv."}');
      rows.push({ scenario: '321-row query → CSV', path: 'spillway', tally: spillway }, { scenario: '321-row query → CSV', path: 'naive', tally: naive });
    }

    // 2. A 10,000-row query exported to XLSX.
    {
      const sql = 'SELECT * FROM transactions WHERE id <= 10000 ORDER BY id';
      const spillway = newTally();
      const query = await call(host, spillway, 's2', 'query_sql', { sql, label: 'first 10,000 transactions' });
      await call(host, spillway, 's2', 'export_table', {
        source: query.spill?.path ?? '',
        format: 'xlsx',
        sort: { column: 'amount', direction: 'desc' },
        filename: 'transactions-10k.xlsx',
      });
      const naive = newTally();
      charge(naive, 'query_sql', { sql });
      const spilled = await host.sandbox.conversation('s2').readFile(query.spill?.path ?? '', { maxBytes: 64 * 1024 * 1024 });
      const all = spilled.data
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      naive.read += countTokens(JSON.stringify({ total: all.length, returned: all.length, limited: false, rows: all }));
      charge(naive, 'create_xlsx', { filename: 'transactions-10k.xlsx', rows: all });
      rows.push(
        {
          scenario: '10,000-row query → XLSX',
          path: 'spillway',
          tally: spillway,
          note: query.truncated ? 'the model read a whole-row prefix, capped by inline.maxTokens' : '',
        },
        { scenario: '10,000-row query → XLSX', path: 'naive', tally: naive },
      );
    }

    // 3. An MCP tool returning a 2 MB JSON-in-text list, saved as CSV.
    {
      const spillway = newTally();
      const listed = await call(host, spillway, 's3', 'tracker__list_issues', {});
      await call(host, spillway, 's3', 'export_table', {
        source: listed.spill?.path ?? '',
        format: 'csv',
        columns: ['number', 'title', 'state', 'author', 'created_at'],
        filename: 'issues.csv',
      });
      const naive = newTally();
      charge(naive, 'tracker__list_issues', {});
      naive.read += countTokens(issueListText);
      charge(naive, 'write_file', {
        path: 'issues.csv',
        content: csvOf(issues.map(({ number, title, state, author, created_at }) => ({ number, title, state, author, created_at }))),
      });
      rows.push(
        {
          scenario: `MCP list, ${(issueListText.length / 1e6).toFixed(1)} MB JSON text → CSV`,
          path: 'spillway',
          tally: spillway,
          note: listed.truncated ? 'the model read a whole-record prefix, capped by inline.maxTokens' : '',
        },
        { scenario: `MCP list, ${(issueListText.length / 1e6).toFixed(1)} MB JSON text → CSV`, path: 'naive', tally: naive },
      );
    }

    // 4. A playbook sending 13 bodies (89,337 characters in all) to an upstream tool.
    {
      const spillway = newTally();
      const fetched = await call(host, spillway, 's4', 'crashes__get_reports', {});
      const source = fetched.spill?.path ?? '';
      await call(host, spillway, 's4', 'write_file', { path: 'args/crash-issue.json', content: JSON.stringify({ repo: 'acme/app', labels: ['crash'] }) });
      for (let index = 0; index < bodies.length; index += 1) {
        await call(host, spillway, 's4', 'call_with_args_file', {
          tool: 'tracker__create_issue',
          argsPath: 'args/crash-issue.json',
          overrides: { title: `Crash CR-${index + 1}: SIGSEGV in worker thread`, body: { $file: source, $pointer: `/${index}/body` } },
        });
      }
      // The upstream tool must have received every body exactly, or the comparison is void.
      if (delivered.length !== bodies.length || delivered.some((body, index) => body !== bodies[index])) {
        throw new Error('the upstream tool did not receive the 13 bodies exactly through call_with_args_file');
      }
      const naive = newTally();
      charge(naive, 'crashes__get_reports', {});
      naive.read += countTokens(JSON.stringify(bodies.map((body, index) => ({ id: `CR-${index + 1}`, body }))));
      for (const [index, body] of bodies.entries()) {
        charge(naive, 'tracker__create_issue', { repo: 'acme/app', title: `Crash CR-${index + 1}: SIGSEGV in worker thread`, body, labels: ['crash'] });
        naive.read += countTokens('{"number":1040,"url":"https://tracker.invalid/acme/app/issues/1040"}');
      }
      const total = bodies.reduce((sum, body) => sum + body.length, 0);
      rows.push(
        { scenario: `13 bodies, ${total.toLocaleString('en-US')} chars → upstream tool`, path: 'spillway', tally: spillway },
        { scenario: `13 bodies, ${total.toLocaleString('en-US')} chars → upstream tool`, path: 'naive', tally: naive },
      );
    }
  } finally {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  }

  const format = (value: number) => value.toLocaleString('en-US');
  const header = [
    'scenario',
    'host',
    'calls',
    'tokens read',
    'tokens written',
    'largest call',
    `> ${format(outputLimit)} out?`,
    `writing @${tokensPerSecond} tok/s`,
  ];
  const lines = [header];
  for (const row of rows) {
    lines.push([
      row.scenario,
      row.path,
      String(row.tally.calls),
      format(row.tally.read),
      format(row.tally.written),
      format(row.tally.largestCall),
      row.tally.largestCall > outputLimit ? 'YES' : 'no',
      `${format(Math.round(row.tally.written / tokensPerSecond))} s`,
    ]);
  }
  const widths = header.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? '').length)));
  const render = (line: string[]) => `| ${line.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(render(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const line of lines.slice(1)) console.log(render(line));
  console.log('');
  console.log('Ratios (naive ÷ spillway):');
  for (let index = 0; index < rows.length; index += 2) {
    const spillway = rows[index] as Row;
    const naive = rows[index + 1] as Row;
    const ratio = (a: number, b: number) => (b === 0 ? '∞' : `${(a / b).toFixed(a / b >= 100 ? 0 : 1)}×`);
    console.log(
      `  ${spillway.scenario}: read ${ratio(naive.tally.read, spillway.tally.read)}, written ${ratio(naive.tally.written, spillway.tally.written)}${spillway.note ? `; ${spillway.note}` : ''}`,
    );
  }
  if (standIns.length > 0) console.log(`\nStand-ins used (tool not registered in this build; only their short results are counted): ${standIns.join(', ')}.`);
  console.log(
    `Tokenizer: gpt-tokenizer o200k_base. Bench ran in ${(performance.now() - started) / 1000 < 1 ? '<1' : ((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
}
