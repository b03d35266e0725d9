import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  type GetPromptResult,
} from '@modelcontextprotocol/sdk/types.js';
import { toSpillwayError, type SpillwayError } from '../errors.js';
import type { Host } from '../host/host.js';
import { checkPromptArguments, type PromptContext } from '../host/prompts.js';
import { attachmentUriPrefix } from '../outputs/attachments.js';
import { completeSandboxPath } from '../sandbox/index.js';
import type { RequestScope } from './request-scope.js';

/** The most values one completion/complete answers with (the spec's cap). */
export const maxCompletionValues = 100;

/** The template of a conversation's outputs as resources (what resources/read serves); its `name` completes to the files there. */
export const outputsTemplate = {
  uriTemplate: `${attachmentUriPrefix}outputs/{name}`,
  name: 'outputs',
  title: "This conversation's outputs",
  description: 'A file in outputs/ (exports, documents, charts); complete "name" to list them.',
} as const;

/** Resolves the scope of one request from its `_meta` and the SDK's extra (the session's own rules, in mcp-server.ts). */
export type ScopeResolver = (meta: Record<string, unknown> | undefined, extra: Parameters<Parameters<Server['setRequestHandler']>[1]>[1]) => RequestScope;

/**
 * prompts/list and prompts/get from the host's prompt registry,
 * completion/complete for prompt arguments and the outputs template, and
 * resources/templates/list. Prompts render and complete in the request's own
 * conversation; a path that the sandbox refuses completes to nothing.
 */
export function installPrompts(server: Server, host: Host, scopeOf: ScopeResolver): () => void {
  const contextOf = (scope: RequestScope): PromptContext => ({
    ...scope,
    sandbox: host.sandbox.conversation(scope.conversationId, scope.principal),
    config: host.config,
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: host.prompts.list().map((prompt) => ({
      name: prompt.name,
      ...(prompt.title === undefined ? {} : { title: prompt.title }),
      description: prompt.description,
      arguments: (prompt.arguments ?? []).map((argument) => ({
        name: argument.name,
        ...(argument.description === undefined ? {} : { description: argument.description }),
        required: argument.required === true,
      })),
    })),
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra): Promise<GetPromptResult> => {
    const prompt = host.prompts.get(request.params.name);
    if (prompt === undefined) {
      const names = host.prompts.list().map((known) => known.name);
      throw new McpError(ErrorCode.InvalidParams, `No prompt named ${JSON.stringify(request.params.name)}; prompts: ${names.join(', ') || 'none'}.`, {
        code: 'INVALID_ARGUMENTS',
      });
    }
    try {
      const args = checkPromptArguments(prompt, request.params.arguments);
      const messages = await prompt.render(args, contextOf(scopeOf(request.params._meta, extra)));
      return { description: prompt.description, messages };
    } catch (error) {
      throw promptError(toSpillwayError(error));
    }
  });

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref, argument } = request.params;
    let values: readonly string[] = [];
    try {
      const context = contextOf(scopeOf(request.params._meta, extra));
      if (ref.type === 'ref/prompt') {
        const complete = host.prompts.get(ref.name)?.arguments?.find((declared) => declared.name === argument.name)?.complete;
        if (complete !== undefined) values = await complete(argument.value, context);
      } else if (ref.uri === outputsTemplate.uriTemplate && argument.name === 'name') {
        values = (await completeSandboxPath(context.sandbox, `outputs/${argument.value}`)).map((path) => path.slice('outputs/'.length));
      }
    } catch {
      values = []; // an unusable scope or a refused path completes to nothing, never to an error the user must read
    }
    return { completion: { values: values.slice(0, maxCompletionValues), total: values.length, hasMore: values.length > maxCompletionValues } };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [{ ...outputsTemplate }] }));

  const onPromptsChanged = () => {
    server.sendPromptListChanged().catch(() => undefined);
  };
  host.on('prompts-changed', onPromptsChanged);
  return () => host.off('prompts-changed', onPromptsChanged);
}

function promptError(error: SpillwayError): McpError {
  const invalid = error.code === 'INVALID_ARGUMENTS' || error.code.startsWith('PATH_') || error.code === 'CONVERSATION_INVALID';
  return new McpError(invalid ? ErrorCode.InvalidParams : ErrorCode.InternalError, error.message, { code: error.code });
}
