// Delegation and proxying: (1) the time spillway adds when it proxies an
// upstream MCP call, against calling the same upstream directly with the SDK
// client, for a small and a 1 MB result; (2) the output tokens a model writes
// for the 89,337-character playbook case with and without call_with_args_file
// (gpt-tokenizer, o200k_base).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { packageRoot } from '../src/config/package-root.js';
import { createHost } from '../src/runtime/create-host.js';
import { benchConfig } from './bench-setup.js';
import { seededRandom } from '../test/helpers/seeded-random.js';

const fixture = path.join(packageRoot, 'dist', 'test', 'fixtures', 'recording-upstream.js');
const floorServer = path.join(packageRoot, 'dist', 'bench', 'http-floor-server.js');
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

/** `spillway serve` on a free loopback port (Streamable HTTP) and an SDK client connected to it. */
async function connectServe(configFile: string): Promise<{ client: Client; child: ChildProcess }> {
  const child = spawn(process.execPath, [spillwayBin, 'serve', '--config', configFile, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const found = /serving MCP \(Streamable HTTP\) at (http:\/\/\S+)/.exec(seen);
      if (found !== null) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`spillway serve exited (${code}) before its banner: ${seen.slice(0, 300)}`)));
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, child };
}

/**
 * The in-process spill of the same result: host.execute of a local tool that
 * returns `text` (a table as JSON text in an MCP text block), spilled and kept
 * inline, in ms (medians of alternating rounds).
 */
async function inProcessSpill(dir: string, text: string, rounds: number): Promise<{ spill: number; inline: number }> {
  const host = await createHost({ config: benchConfig(path.join(dir, 'in-process')), builtins: false });
  const handler = () => ({ mcp: { content: [{ type: 'text' as const, text }] } });
  host.registerTool({ name: 'spilled', description: 'bench', inputSchema: { type: 'object' }, handler });
  host.registerTool({ name: 'inline', description: 'bench', inputSchema: { type: 'object' }, spill: false, handler });
  const times: Record<'spilled' | 'inline', number[]> = { spilled: [], inline: [] };
  try {
    for (let round = -20; round < rounds; round += 1) {
      for (const name of ['spilled', 'inline'] as const) {
        const started = performance.now();
        const result = await host.execute({ name, arguments: {}, id: `${name}-${round}` }, { conversationId: 'bench' });
        if (round >= 0) times[name].push(performance.now() - started);
        if (result.isError || (name === 'spilled') !== (result.spill !== undefined)) throw new Error(`in-process ${name} call went wrong`);
      }
    }
  } finally {
    await host.close();
  }
  return { spill: median(times.spilled), inline: median(times.inline) };
}

/** Resolves once the client lists `name`: spillway serves before its upstreams connect, and announces their tools with tools/list_changed. */
/** An SDK client over Streamable HTTP to bench/http-floor-server.ts (`raw` or `sdk`) in a process of its own. */
async function connectFloor(kind: 'raw' | 'sdk'): Promise<{ client: Client; child: ChildProcess }> {
  const child = spawn(process.execPath, [floorServer, kind], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
    child.once('exit', (code) => reject(new Error(`the ${kind} floor server exited (${code})`)));
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return { client, child };
}

/**
 * What an HTTP hop costs before spillway does anything: the same SDK client calling a tool
 * that answers ~500 characters over stdio (the recording upstream, `direct`), over HTTP to a
 * responder that only answers, and over HTTP to a bare SDK McpServer. Alternating rounds, medians.
 */
async function httpFloor(direct: Client): Promise<void> {
  const floors = [await connectFloor('raw'), await connectFloor('sdk')];
  const rounds = 300;
  const times: number[][] = [[], [], []];
  try {
    for (let round = -30; round < rounds; round += 1) {
      const calls = [
        () => direct.callTool({ name: 'big', arguments: { mb: 0.0005 } }),
        ...floors.map(
          ({ client }) =>
            () =>
              client.callTool({ name: 'echo', arguments: {} }),
        ),
      ];
      for (const [index, call] of calls.entries()) {
        const started = performance.now();
        await call();
        if (round >= 0) times[index]?.push(performance.now() - started);
      }
    }
  } finally {
    for (const floor of floors) {
      await floor.client.close();
      floor.child.kill();
    }
  }
  const [stdio, raw, sdk] = times.map(median) as [number, number, number];
  console.log(`
The floor of one call (~500 characters back, ${rounds} alternating rounds, medians), the same SDK client each time:`);
  console.log('\n| server | ms | over stdio |\n|---|---:|---:|');
  console.log(`| the upstream fixture over stdio | ${stdio.toFixed(2)} | |`);
  console.log(`| a responder that only answers, over HTTP | ${raw.toFixed(2)} | +${(raw - stdio).toFixed(2)} |`);
  console.log(`| a bare SDK McpServer over Streamable HTTP | ${sdk.toFixed(2)} | +${(sdk - stdio).toFixed(2)} |`);
}

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
  // One configuration per spillway process: each its own sandbox and data folder.
  const writeConfig = async (name: string) => {
    const file = path.join(dir, `${name}.json`);
    const config = {
      sandbox: { root: path.join(dir, name, 'sandbox') },
      data: { dir: path.join(dir, name, 'data') },
      log: { level: 'error' },
      upstreams: { rec: { command: process.execPath, args: [fixture], env: { RECORD_DIR: recordDir } } },
      policy: { rules: { 'rec__*': 'allow' } },
    };
    await writeFile(file, JSON.stringify(config));
    return file;
  };
  const configFile = await writeConfig('stdio');
  const direct = await connect(process.execPath, [fixture], { RECORD_DIR: recordDir });
  const proxied = await connect(process.execPath, [spillwayBin, 'serve', '--stdio', '--config', configFile, '--conversation', 'bench']);
  const served = await connectServe(await writeConfig('http'));
  await Promise.all([untilTool(proxied, 'rec__big'), untilTool(served.client, 'rec__big')]);
  try {
    console.log('Proxied call overhead: SDK client -> upstream directly, vs SDK client -> spillway -> upstream (stdio), spillway over stdio and');
    console.log('over Streamable HTTP (`serve` on 127.0.0.1). Medians of alternating rounds; a result over 1,000 characters is spilled and the');
    console.log('client gets the reference (and a prefix when it is over the inline cap).\n');
    console.log('| result | rounds | direct (median ms) | through spillway stdio | added | ratio | through spillway HTTP | added | ratio |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [label, mb, rounds] of [
      ['small (~500 B, inline)', 0.0005, 200],
      ['2 KB (spilled)', 2 / 1024, 200],
      ['1 MB (spilled)', 1, 20],
    ] as const) {
      for (let warm = 0; warm < 3; warm += 1) {
        await timeCall(direct, 'big', mb);
        await timeCall(proxied, 'rec__big', mb);
        await timeCall(served.client, 'rec__big', mb);
      }
      const times: number[][] = [[], [], []];
      for (let round = 0; round < rounds; round += 1) {
        times[0]?.push(await timeCall(direct, 'big', mb));
        times[1]?.push(await timeCall(proxied, 'rec__big', mb));
        times[2]?.push(await timeCall(served.client, 'rec__big', mb));
      }
      const [a, b, c] = times.map(median) as [number, number, number];
      console.log(
        `| ${label} | ${rounds} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b - a).toFixed(2)} | ${(b / a).toFixed(2)}× | ${c.toFixed(2)} | ${(c - a).toFixed(2)} | ${(c / a).toFixed(2)}× |`,
      );
    }
    // The same 2 KB result spilled in-process: what a proxied call adds beyond it is the proxy's own cost.
    const sample = await direct.callTool({ name: 'big', arguments: { mb: 2 / 1024 } });
    const text = (sample.content as { type: string; text: string }[])[0]?.text ?? '';
    const local = await inProcessSpill(dir, text, 200);
    console.log(
      `\nThe same 2 KB result (${text.length} characters) in-process (host.execute, 200 rounds): spilled ${local.spill.toFixed(2)} ms, inline ${local.inline.toFixed(2)} ms (the spill adds ${(local.spill - local.inline).toFixed(2)} ms).`,
    );
    await httpFloor(direct);
  } finally {
    await Promise.all([direct.close(), proxied.close(), served.client.close()]);
    served.child.kill();
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
