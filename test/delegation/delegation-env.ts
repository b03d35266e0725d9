import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ApprovalHandler, ToolDefinition } from '../../src/host/tool.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

/** A host with a recording target tool `sink` (local) and `gh__create_issue` (marked as an upstream tool). */
export interface DelegationEnv extends TempHost {
  conversation: string;
  /** Arguments each target received, in call order. */
  received: { tool: string; args: Record<string, unknown> }[];
  /** Writes a file into the conversation folder (relative path). */
  put(relative: string, content: string | Buffer): Promise<void>;
  call(args: Record<string, unknown>): ReturnType<TempHost['host']['execute']>;
  readRecords(): Promise<Record<string, unknown>[]>;
}

export const sinkSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'body'],
  properties: {
    title: { type: 'string', maxLength: 100 },
    body: { type: 'string' },
    labels: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object' },
    rows: { type: 'array' },
  },
} as const;

export async function delegationEnv(overrides: Record<string, unknown> = {}, approve?: ApprovalHandler): Promise<DelegationEnv> {
  const env = await tempHost(overrides, approve === undefined ? {} : { approve });
  const conversation = 'c1';
  const received: DelegationEnv['received'] = [];
  const target = (name: string, origin?: ToolDefinition['origin']): ToolDefinition => ({
    name,
    description: `records its arguments (${name})`,
    inputSchema: structuredClone(sinkSchema) as unknown as ToolDefinition['inputSchema'],
    ...(origin === undefined ? {} : { origin }),
    handler: (args) => {
      received.push({ tool: name, args });
      return { value: `${name} got ${Object.keys(args).length} arguments` };
    },
  });
  env.host.registerTool(target('sink'));
  env.host.registerTool(target('gh__create_issue', { upstream: 'gh' }));
  await env.host.sandbox.conversation(conversation).ensure();
  const folder = path.join(env.host.sandbox.conversation(conversation).dir);
  return {
    ...env,
    conversation,
    received,
    async put(relative, content) {
      await mkdir(path.dirname(path.join(folder, relative)), { recursive: true });
      await writeFile(path.join(folder, relative), content);
    },
    call: (args) => env.host.execute({ name: 'call_with_args_file', arguments: args }, { conversationId: conversation }),
    async readRecords() {
      await env.host.close();
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(path.join(env.config.data.dir, 'records.jsonl'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/**
 * About `bytes` bytes (whole units, never a split surrogate pair) with the characters that
 * break hand-copied text: quotes, backslashes, newlines, U+2028, emoji, .so.0 names.
 */
export function trickyBody(bytes: number): string {
  const unit = 'frame #12 libpthread.so.0 os_thr_id@entry=232155 "quoted" \\back\\slash\\ \u2028 tab\t ünïcödé 🧵\n';
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
}
