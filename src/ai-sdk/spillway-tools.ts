import { jsonSchema, tool, type Tool } from 'ai';
import type { Host } from '../host/host.js';
import type { ExecuteContext, ListedTool } from '../host/tool.js';
import { toModelOutput, toToolOutput, type SpillwayToolOutput } from './tool-output.js';

/** Which conversation (sandbox folder) the tools act in, and who calls. */
export interface ConversationContext {
  conversationId: string;
  /**
   * Who the conversation belongs to (your user id, if it is a folder name: see
   * docs/embedding.md): its files are `<root>/<principal>/<conversationId>/`.
   * Default "local". Also recorded as the caller unless `caller` is given.
   */
  principal?: string;
  /** The caller's identity for the execution record, when it differs from the principal. */
  caller?: string;
}

/** The host's execution context for a conversation context. */
export function executeContextOf(context: ConversationContext, signal: AbortSignal | undefined): ExecuteContext {
  const caller = context.caller ?? context.principal;
  return {
    conversationId: context.conversationId,
    ...(context.principal === undefined ? {} : { principal: context.principal }),
    ...(caller === undefined ? {} : { caller }),
    ...(signal === undefined ? {} : { signal }),
  };
}

/**
 * The host's tools (built-in and upstream) as AI SDK tools bound to one
 * conversation. Every call runs through the host: argument validation,
 * policy, spill rules, the execution record. The model reads the result (or
 * its whole-record prefix) and the file reference; the application gets the
 * structured facts (`SpillwayToolOutput`).
 *
 * @example
 * const tools = spillwayTools(host, { conversationId: chat.id, principal: user.id });
 * await generateText({ model, tools, prompt, stopWhen: stepCountIs(8) });
 */
export function spillwayTools(host: Host, context: ConversationContext): Record<string, Tool<Record<string, unknown>, SpillwayToolOutput>> {
  const tools: Record<string, Tool<Record<string, unknown>, SpillwayToolOutput>> = {};
  for (const definition of host.listTools()) tools[definition.name] = asAiTool(host, definition, context);
  return tools;
}

function asAiTool(host: Host, definition: ListedTool, context: ConversationContext): Tool<Record<string, unknown>, SpillwayToolOutput> {
  return tool<Record<string, unknown>, SpillwayToolOutput>({
    description: definition.description,
    // JSON round trip: TypeBox schemas carry symbol keys that are not JSON Schema.
    inputSchema: jsonSchema<Record<string, unknown>>(
      JSON.parse(JSON.stringify({ type: 'object', ...definition.inputSchema })) as Parameters<typeof jsonSchema>[0],
    ),
    execute: async (input, options) => {
      const result = await host.execute({ name: definition.name, arguments: input, id: options.toolCallId }, executeContextOf(context, options.abortSignal));
      return toToolOutput(result);
    },
    toModelOutput,
  });
}
