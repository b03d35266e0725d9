import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../host/host.js';
import { createMcpServer, serverInfo } from '../mcp/mcp-server.js';
import { spillMetaKey, type SpillMeta } from '../spill/spill-ref.js';
import { formatBytes, formatCount } from '../util/format.js';
import { echoTool } from './echo-tool.js';

export interface RunDemoOptions {
  host: Host;
  /** The conversation the walkthrough runs in (its sandbox folder). */
  conversationId: string;
  /** Receives the walkthrough's text, line by line. */
  print: (line: string) => void;
  /** Characters of each tool result to show before "… (N more characters)". Default 1,200. */
  previewChars?: number;
}

export type DemoStepStatus = 'ran' | 'skipped' | 'failed';

export interface DemoStep {
  name: string;
  tool: string;
  status: DemoStepStatus;
  /** The text the model read (or why the step was skipped). */
  text: string;
  /** Characters of arguments the model wrote for this call. */
  argumentChars: number;
  spill?: SpillMeta;
  /** Paths under outputs/ the call produced. */
  outputs: string[];
}

export interface DemoReport {
  conversationId: string;
  /** Absolute path of the conversation's sandbox folder. */
  folder: string;
  steps: DemoStep[];
  /** Every file in the conversation folder, relative path and size. */
  files: { path: string; bytes: number }[];
}

/** The walkthrough's query: 321 rows with the default seed (fraud of 200 or more). */
export const demoQuery = [
  'SELECT t.id, t.ts, t.account_id, a.name AS account_name, t.merchant, t.category,',
  '       t.country, t.amount, t.currency, t.channel, t.note',
  'FROM transactions AS t JOIN accounts AS a USING (account_id)',
  "WHERE t.label = 'fraud' AND t.amount >= 200",
  'ORDER BY t.ts',
].join('\n');

const rule = '─'.repeat(72);

/**
 * The scripted walkthrough: an in-memory MCP client plays the model against
 * the host's real MCP server, so every step shows exactly what a model would
 * send and read. Steps whose tools are not registered are skipped with a line
 * that says so; a failing step is shown as the model would see the error and
 * the walkthrough goes on.
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoReport> {
  const { host, conversationId, print } = options;
  const previewChars = options.previewChars ?? 1200;
  if (host.getTool(echoTool.name) === undefined) host.registerTool(echoTool);

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(host, { conversationId, caller: 'spillway demo' });
  const client = new Client({ name: 'spillway-demo', version: serverInfo.version });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const steps: DemoStep[] = [];
  const sandbox = host.sandbox.conversation(conversationId);

  try {
    const available = new Set((await client.listTools()).tools.map((tool) => tool.name));
    print(`spillway demo: conversation ${conversationId}`);
    print(`Tools offered to the model: ${[...available].sort().join(', ')}`);

    const call = async (step: { name: string; tool: string; args: Record<string, unknown>; why: string }): Promise<DemoStep> => {
      print('');
      print(rule);
      print(`${steps.length + 1}. ${step.name}`);
      print(`   ${step.why}`);
      const argumentText = JSON.stringify(step.args);
      if (!available.has(step.tool)) {
        const skipped: DemoStep = {
          name: step.name,
          tool: step.tool,
          status: 'skipped',
          text: `${step.tool} is not registered in this build`,
          argumentChars: 0,
          outputs: [],
        };
        print(`   (skipped: the ${step.tool} tool is not registered in this build yet)`);
        steps.push(skipped);
        return skipped;
      }
      print(`\n▶ the model calls ${step.tool} (${formatCount(argumentText.length)} characters of arguments):`);
      print(indent(compactJson(step.args)));
      const result = (await client.callTool({ name: step.tool, arguments: step.args })) as CallToolResult;
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
      const outputs = result.content.flatMap((block) =>
        block.type === 'resource_link' ? [decodeURIComponent(block.uri.replace(/^spillway:\/\/sandbox\//, ''))] : [],
      );
      const spill = result._meta?.[spillMetaKey] as SpillMeta | undefined;
      print(`\n◀ the model reads${result.isError ? ' (an error result)' : ''}:`);
      print(indent(preview(text, previewChars)));
      for (const block of result.content) {
        if (block.type === 'resource_link')
          print(`   [download card] ${block.name} → ${block.uri}${block.description === undefined ? '' : ` (${block.description})`}`);
      }
      if (spill !== undefined) print(`   [_meta "${spillMetaKey}"] ${JSON.stringify(spill)}`);
      const done: DemoStep = { name: step.name, tool: step.tool, status: result.isError ? 'failed' : 'ran', text, argumentChars: argumentText.length, outputs };
      if (spill !== undefined) done.spill = spill;
      steps.push(done);
      return done;
    };

    const query = await call({
      name: 'Query the fraudulent transactions of 200 or more (321 rows with the default seed)',
      tool: 'query_sql',
      why: 'The model asks the embedded demo database for every fraudulent transaction of 200 or more.',
      args: { sql: demoQuery, label: 'fraud of 200 or more' },
    });
    const source = query.spill?.format === 'jsonl' ? query.spill.path : undefined;
    if (source === undefined) {
      print('');
      print('The query result was not saved to a file (it is small, or the query failed), so the file steps have no source; stopping here.');
    } else {
      print('');
      print(`   The rows went to ${source} before the model saw anything; from here on the model passes that path, never the rows.`);

      await call({
        name: 'Export to XLSX with chosen columns and a sort',
        tool: 'export_table',
        why: 'The user wants a spreadsheet: the model names the source file, the columns and the order. The rows are read from the file by a worker thread.',
        args: {
          source,
          format: 'xlsx',
          columns: [
            'id',
            'ts',
            { name: 'account_name', header: 'Account holder' },
            'merchant',
            'country',
            { name: 'amount', header: 'Amount' },
            'currency',
            'channel',
            'note',
          ],
          sort: { column: 'amount', direction: 'desc' },
          filename: 'fraud-200-plus.xlsx',
        },
      });

      await call({
        name: 'Build a DOCX report',
        tool: 'build_document',
        why: 'A short report whose table is read from the same spill file: the 20 largest amounts.',
        args: {
          format: 'docx',
          filename: 'fraud-review.docx',
          spec: {
            title: 'Fraud review: transactions of 200 or more',
            blocks: [
              {
                type: 'paragraph',
                text: `The query matched ${query.spill?.rows ?? 'these'} transactions labelled fraud with an amount of 200 or more. The full list is in fraud-200-plus.xlsx.`,
              },
              { type: 'heading', text: 'The 20 largest', level: 2 },
              {
                type: 'table',
                source,
                title: 'Largest fraudulent transactions',
                columns: ['id', 'ts', 'merchant', 'country', { name: 'amount', header: 'Amount' }, 'currency'],
                sort: { column: 'amount', direction: 'desc' },
                range: { start: 0, count: 20 },
              },
            ],
          },
        },
      });

      const argsPath = 'args/echo-case.json';
      const caseArguments = { caseId: 'FR-2026-0042', action: 'open review' };
      if (available.has('write_file')) {
        await call({
          name: 'Write an arguments file',
          tool: 'write_file',
          why: 'The model writes the small, judged part of the arguments once, as a file.',
          args: { path: argsPath, content: caseArguments },
        });
      } else {
        print('');
        print(rule);
        print(`${steps.length + 1}. Write an arguments file`);
        print(`   (the write_file tool is not registered in this build yet; the walkthrough writes ${argsPath} itself)`);
        await sandbox.writeFile(argsPath, `${JSON.stringify(caseArguments, null, 2)}\n`, { folders: ['args'], overwrite: true });
        steps.push({
          name: 'Write an arguments file',
          tool: 'write_file',
          status: 'skipped',
          text: 'written by the walkthrough',
          argumentChars: 0,
          outputs: [],
        });
      }

      await call({
        name: 'Send the rows to a tool that cannot read files',
        tool: 'call_with_args_file',
        why: 'The echo tool needs the rows as arguments. The model passes the arguments file and references into the spill; the host expands them, so the rows are never retyped.',
        args: {
          tool: echoTool.name,
          argsPath,
          overrides: { transactions: { $file: source }, firstMerchant: { $file: source, $pointer: '/0/merchant' } },
        },
      });
    }

    await call({ name: "List the conversation's files", tool: 'list_files', why: 'What the model sees when it asks which files exist.', args: {} });
  } finally {
    await client.close();
    await server.close();
  }

  const files = await listConversationFiles(sandbox.dir);
  const written = steps.reduce((sum, step) => sum + step.argumentChars, 0);
  const dataBytes = files.reduce((sum, file) => sum + file.bytes, 0);
  print('');
  print(rule);
  print(`Files in ${sandbox.dir}:`);
  for (const file of files) print(`  ${file.path.padEnd(48)} ${formatBytes(file.bytes).padStart(10)}`);
  print('');
  print(
    `The model wrote ${formatCount(written)} characters of arguments in ${steps.filter((step) => step.status !== 'skipped').length} calls; the files it produced and passed around hold ${formatBytes(dataBytes)}.`,
  );
  const skipped = steps.filter((step) => step.status === 'skipped');
  if (skipped.length > 0) print(`Skipped (tool not registered yet): ${skipped.map((step) => step.tool).join(', ')}.`);
  const failed = steps.filter((step) => step.status === 'failed');
  if (failed.length > 0) print(`Failed steps (shown above as the model saw them): ${failed.map((step) => step.tool).join(', ')}.`);
  print('Walkthrough finished.');
  return { conversationId, folder: sandbox.dir, steps, files };
}

/** JSON as a person reads it: short objects and lists on one line, long ones broken up. */
export function compactJson(value: unknown, indentation = ''): string {
  const flat = JSON.stringify(value) ?? 'null';
  if (typeof value !== 'object' || value === null || flat.length + indentation.length <= 96) return flat;
  const inner = `${indentation}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => inner + compactJson(item, inner)).join(',\n')}\n${indentation}]`;
  const members = Object.entries(value).map(([key, member]) => `${inner}${JSON.stringify(key)}: ${compactJson(member, inner)}`);
  return `{\n${members.join(',\n')}\n${indentation}}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `   ${line}`)
    .join('\n');
}

function preview(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.lastIndexOf('\n', chars);
  const end = cut > chars / 2 ? cut : chars;
  return `${text.slice(0, end)}\n… (${formatCount(text.length - end)} more characters the model also reads)`;
}

async function listConversationFiles(dir: string): Promise<{ path: string; bytes: number }[]> {
  const found: { path: string; bytes: number }[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) found.push({ path: path.relative(dir, full), bytes: (await stat(full)).size });
    }
  };
  await walk(dir);
  return found;
}
