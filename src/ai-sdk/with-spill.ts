import type { Tool } from 'ai';
import { SpillwayError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { ToolDefinition } from '../host/tool.js';
import { executeContextOf, type ConversationContext } from './spillway-tools.js';
import { toModelOutput, toToolOutput, type SpillwayToolOutput } from './tool-output.js';

export interface WithSpillContext extends ConversationContext {
  /** The tool's name as the model calls it (names the spill file, picks per-tool spill settings and policy). */
  toolName: string;
}

/**
 * Wraps any AI SDK tool so its results go through spillway's spill rules: a
 * large result is written to the conversation's sandbox and the model reads
 * the inline form (or a whole-record prefix) and the file reference. A thrown
 * error is spilled whole (message and stack) to errors/, and the model reads
 * its head and tail. The policy in the host's config applies to the tool's name.
 *
 * @example
 * const tools = { crm_search: withSpill(crmSearch, host, { conversationId, toolName: 'crm_search' }) };
 */
export function withSpill<INPUT, OUTPUT>(inner: Tool<INPUT, OUTPUT>, host: Host, context: WithSpillContext): Tool<INPUT, SpillwayToolOutput> {
  const execute = inner.execute;
  if (execute === undefined)
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `withSpill: the tool ${context.toolName} has no execute function (client-side tools have no result to spill).`,
      { tool: context.toolName },
    );
  return {
    ...inner,
    execute: async (input: INPUT, options: Parameters<typeof execute>[1]) => {
      const definition: ToolDefinition = {
        name: context.toolName,
        description: inner.description ?? '',
        inputSchema: { type: 'object' },
        async handler() {
          try {
            return { value: await lastValue(execute(input, options)) };
          } catch (error) {
            if (SpillwayError.is(error)) throw error;
            throw new SpillwayError('TOOL_FAILED', fullErrorText(error), undefined, { cause: error });
          }
        },
      };
      const result = await host.executeUnlisted(
        definition,
        { name: context.toolName, arguments: input, id: options.toolCallId },
        executeContextOf(context, options.abortSignal),
      );
      return toToolOutput(result);
    },
    toModelOutput,
  } as Tool<INPUT, SpillwayToolOutput>;
}

/** A tool's execute may stream preliminary results; the last one is the result. */
async function lastValue(produced: unknown): Promise<unknown> {
  const awaited = await produced;
  if (awaited !== null && typeof awaited === 'object' && Symbol.asyncIterator in awaited) {
    let last: unknown;
    for await (const value of awaited as AsyncIterable<unknown>) last = value;
    return last;
  }
  return awaited;
}

/** The whole error: the stack when it has one (it starts with the message), else the message, then its causes. */
function fullErrorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.stack !== undefined && current.stack.includes(current.message) ? current.stack : `${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join('\nCaused by: ');
}
