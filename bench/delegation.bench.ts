// Delegation and proxying: (1) the time spillway adds when it proxies an
// upstream MCP call, against calling the same upstream directly with the SDK
// client, for a small and a 1 MB result; (2) the output tokens a model writes
// for the 89,337-character playbook case with and without call_with_args_file
// (gpt-tokenizer, o200k_base).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { packageRoot } from '../src/config/package-root.js';
import { seededRandom } from '../test/helpers/seeded-random.js';

const fixture = path.join(packageRoot, 'dist', 'test', 'fixtures', 'recording-upstream.js');
const spillwayBin = path.join(packageRoot, 'bin', 'spillway.js');

export default async function delegationBench(): Promise<void> {
  await proxyOverhead();
  tokenEconomy();
}

// ---------------------------------------------------------------- proxying

async function connect(command: string, args: string[], env?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command, args, ...(env === undefined ? {} : { env: { PATH: process.env.PATH ?? '', ...env } }), stderr: 'ignore' }),
  );
  return client;
}

/** Resolves once the client lists `name`: spillway serves before its upstreams connect, and announces their tools with tools/list_changed. */
async function untilTool(client: Client, name: string): Promise<void> {
  let changed = () => undefined as void;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  for (;;) {
    const next = new Promise<void>((resolve) => (changed = resolve));
    if ((await client.listTools()).tools.some((tool) => tool.name === name)) return;
    await next;
  }
}

async function timeCall(client: Client, name: string, mb: number): Promise<number> {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: { mb } }, undefined, { timeout: 120_000 });
  const elapsed = performance.now() - started;
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function proxyOverhead(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-bench-delegation-'));
  const recordDir = path.join(dir, 'received');
  const configFile = path.join(dir, 'spillway.json');
  await writeFile(
    configFile,
    JSON.stringify({
      sandbox: { root: path.join(dir, 'sandbox') },
      data: { dir: path.join(dir, 'data') },
      log: { level: 'error' },
      upstreams: { rec: { command: process.execPath, args: [fixture], env: { RECORD_DIR: recordDir } } },
      policy: { rules: { 'rec__*': 'allow' } },
    }),
  );
  const direct = await connect(process.execPath, [fixture], { RECORD_DIR: recordDir });
  const proxied = await connect(process.execPath, [spillwayBin, 'serve', '--stdio', '--config', configFile, '--conversation', 'bench']);
  await untilTool(proxied, 'rec__big');
  try {
    console.log('Proxied call overhead: SDK client -> upstream directly, vs SDK client -> spillway (stdio) -> upstream (stdio).');
    console.log('Medians of alternating rounds; the proxied 1 MB result is spilled to a file and the client gets a prefix plus the path.\n');
    console.log('| result | rounds | direct (median ms) | through spillway (median ms) | added (ms) | ratio |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [label, mb, rounds] of [
      ['small (~500 B)', 0.0005, 200],
      ['1 MB', 1, 20],
    ] as const) {
      for (let warm = 0; warm < 3; warm += 1) {
        await timeCall(direct, 'big', mb);
        await timeCall(proxied, 'rec__big', mb);
      }
      const directTimes: number[] = [];
      const proxiedTimes: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        directTimes.push(await timeCall(direct, 'big', mb));
        proxiedTimes.push(await timeCall(proxied, 'rec__big', mb));
      }
      const a = median(directTimes);
      const b = median(proxiedTimes);
      console.log(`| ${label} | ${rounds} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b - a).toFixed(2)} | ${(b / a).toFixed(2)}× |`);
    }
  } finally {
    await Promise.all([direct.close(), proxied.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- tokens

/** Deterministic pseudo-random numbers, so every run measures the same text. */
const random = seededRandom;

const words =
  'the worker thread crashes when the queue drains during shutdown after a timeout while the connection pool releases a handle that another request still holds so the scheduler retries and the lock is never released'.split(
    ' ',
  );
const judgementWords =
  'this looks like a duplicate of the earlier report because both traces end in the same release path and the fix in the pool should cover it so I rank the related issues by how close their stacks are'.split(
    ' ',
  );

function prose(next: () => number, vocabulary: string[], chars: number): string {
  let text = '';
  while (text.length < chars) {
    const sentence = Array.from({ length: 8 + Math.floor(next() * 14) }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ');
    text += `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}. `;
  }
  return text.slice(0, chars);
}

function callStack(next: () => number, chars: number): string {
  const functions = [
    'start_thread',
    'clone',
    'worker_loop',
    'queue_pop',
    'pool_release',
    'handle_request',
    'os_thr_create',
    'pthread_mutex_lock',
    '__lll_lock_wait',
  ];
  const libraries = ['/lib/x86_64-linux-gnu/libpthread.so.0', '/lib/x86_64-linux-gnu/libc.so.6', '/opt/app/lib/libcore.so.3'];
  let text = '';
  for (let frame = 0; text.length < chars; frame += 1) {
    const address = Math.floor(next() * 0xffffffffff)
      .toString(16)
      .padStart(12, '0');
    const fn = functions[Math.floor(next() * functions.length)];
    const lib = libraries[Math.floor(next() * libraries.length)];
    text += `#${frame} 0x0000${address} in ${fn} (arg=0x7f3a1c000b70, os_thr_id@entry=${232155 + frame}) at ${fn}.c:${100 + Math.floor(next() * 900)}\n    from ${lib}\n`;
  }
  return text.slice(0, chars);
}

interface PlaybookCall {
  issue: string;
  title: string;
  body: string;
  stack: string;
  comments: string;
  verdict: string;
  reasoning: string;
  related: string[];
}

/**
 * The playbook run from the seed: 13 calls to an external tool, 89,337
 * characters of arguments, 65% of them text copied from query results (issue
 * bodies, call stacks, comments) and 27% the model's own judgement.
 */
function playbookCalls(totalChars: number): PlaybookCall[] {
  const next = random(20261130);
  const calls: PlaybookCall[] = Array.from({ length: 13 }, (_, index) => {
    const copied = Math.round((totalChars * 0.65) / 13);
    const judged = Math.round((totalChars * 0.27) / 13);
    return {
      issue: `CORE-${4100 + index * 7}`,
      title: prose(next, words, 60).trim(),
      body: prose(next, words, Math.round(copied * 0.45)),
      stack: callStack(next, Math.round(copied * 0.4)),
      comments: prose(next, words, Math.round(copied * 0.15) - 60),
      verdict: index % 3 === 0 ? 'duplicate' : 'needs-fix',
      reasoning: prose(next, judgementWords, judged - 160),
      related: [`CORE-${3900 + index}`, `CORE-${3950 + index}`, `CORE-${4000 + index}`],
    };
  });
  // Trim or pad the last body so the arguments total exactly `totalChars`.
  const size = () => calls.reduce((sum, call) => sum + JSON.stringify(call).length, 0);
  const last = calls[calls.length - 1] as PlaybookCall;
  const difference = totalChars - size();
  last.body = difference >= 0 ? last.body + prose(next, words, difference) : last.body.slice(0, last.body.length + difference);
  return calls;
}

function tokenEconomy(): void {
  const calls = playbookCalls(89_337);
  const tool = 'tracker__triage_issue';
  const without = calls.map((call) => ({ name: tool, args: call }));
  // With references: the copied text stays in the spills the query tools wrote; the model writes only pointers and its judgement.
  const withReferences = calls.map((call, index) => {
    const n = String(index * 3 + 1).padStart(4, '0');
    return {
      name: 'call_with_args_file',
      args: {
        tool,
        argsPath: 'args/triage-defaults.json',
        overrides: {
          issue: call.issue,
          title: { $file: `results/${n}-query_sql.json`, $pointer: '/0/title' },
          body: { $file: `results/${n}-query_sql.json`, $pointer: '/0/body' },
          stack: { $file: `results/${String(index * 3 + 2).padStart(4, '0')}-get_stack.txt` },
          comments: { $file: `results/${String(index * 3 + 3).padStart(4, '0')}-query_sql.jsonl`, $pointer: '/0/text' },
          verdict: call.verdict,
          reasoning: call.reasoning,
          related: call.related,
        },
      },
    };
  });
  const defaults = { name: 'write_file', args: { path: 'args/triage-defaults.json', content: '{"project":"CORE","source":"playbook"}' } };
  // With a script per call: run_script reshapes the spills into an args file, then the delegating call adds the judgement.
  const withScripts = calls.flatMap((call, index) => {
    const n = String(index * 3 + 1).padStart(4, '0');
    const code = [
      `const issue = JSON.parse(readFile('results/${n}-query_sql.json'))[0];`,
      `const stack = readFile('results/${String(index * 3 + 2).padStart(4, '0')}-get_stack.txt');`,
      `const comment = JSON.parse(readFile('results/${String(index * 3 + 3).padStart(4, '0')}-query_sql.jsonl').split('\\n')[0]);`,
      `writeFile('args/triage-${call.issue}.json', JSON.stringify({ issue: '${call.issue}', title: issue.title, body: issue.body, stack, comments: comment.text }));`,
    ].join('\n');
    return [
      { name: 'run_script', args: { code } },
      {
        name: 'call_with_args_file',
        args: { tool, argsPath: `args/triage-${call.issue}.json`, overrides: { verdict: call.verdict, reasoning: call.reasoning, related: call.related } },
      },
    ];
  });

  const measure = (label: string, written: { name: string; args: unknown }[]) => {
    const text = written.map((call) => `${call.name}${JSON.stringify(call.args)}`);
    return {
      label,
      calls: written.length,
      chars: text.reduce((sum, part) => sum + part.length, 0),
      tokens: text.reduce((sum, part) => sum + encode(part).length, 0),
    };
  };
  const baseline = measure('arguments typed out (no delegation)', without);
  const rows = [
    baseline,
    measure('call_with_args_file + $file references', [defaults, ...withReferences]),
    measure('run_script + call_with_args_file', withScripts),
  ];
  const argumentChars = calls.reduce((sum, call) => sum + JSON.stringify(call).length, 0);
  console.log(
    `\nTokens the model writes for the playbook case (13 calls, ${argumentChars.toLocaleString('en-US')} characters of arguments, 65% copied text, 27% judgement; o200k_base):\n`,
  );
  console.log('| variant | tool calls | characters written | output tokens | vs typed out | minutes at 80 tok/s |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const versus = row === baseline ? 'baseline' : `${(baseline.tokens / row.tokens).toFixed(2)}× fewer`;
    console.log(
      `| ${row.label} | ${row.calls} | ${row.chars.toLocaleString('en-US')} | ${row.tokens.toLocaleString('en-US')} | ${versus} | ${(row.tokens / 80 / 60).toFixed(1)} |`,
    );
  }
  const judgement = calls.reduce(
    (sum, call) => sum + encode(JSON.stringify({ verdict: call.verdict, reasoning: call.reasoning, related: call.related })).length,
    0,
  );
  console.log(`
Floor: the judgement the model must write in any case is ${judgement.toLocaleString('en-US')} tokens; the copied text it no longer retypes is ${(baseline.tokens - judgement).toLocaleString('en-US')} tokens of the baseline.`);
}
