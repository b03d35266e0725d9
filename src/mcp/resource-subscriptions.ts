import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { toSpillwayError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { FileChanged } from '../host/host-events.js';
import { pathFromAttachmentUri } from '../outputs/attachments.js';
import { conversationFolders } from '../sandbox/index.js';
import type { ScopeResolver } from './mcp-prompts.js';
import { resourceError } from './resource-errors.js';

/** How many resources one session may watch at once. */
export const maxSubscriptionsPerSession = 256;

/**
 * resources/subscribe and resources/unsubscribe for one session: a
 * `spillway://sandbox/<path>` in the request's own conversation (an output,
 * or a spill in results/, which may not exist yet), checked like any client
 * path; or one of the embedder's resources (host.resources).
 * notifications/resources/updated goes out when this host writes the file
 * again, retention removes it, or the embedder touches its resource. Only the subscriber's own principal
 * and conversation match: the key holds both.
 */
export function installSubscriptions(server: Server, host: Host, scopeOf: ScopeResolver): () => void {
  // "<principal>/<conversation>/<path>" (or NUL + an embedder's URI: no folder name holds NUL) → the URI as the client gave it
  const watched = new Map<string, string>();

  const keyOf = (uri: string, meta: Record<string, unknown> | undefined, extra: Parameters<ScopeResolver>[1]): string => {
    if (host.resources.get(uri) !== undefined) return `\u0000${uri}`;
    try {
      const scope = scopeOf(meta, extra);
      const relative = pathFromAttachmentUri(uri);
      const segments = host.sandbox.conversation(scope.conversationId, scope.principal).checkPath(relative, { folders: [...conversationFolders] });
      return `${scope.principal}/${scope.conversationId}/${segments.join('/')}`;
    } catch (error) {
      throw resourceError(uri, toSpillwayError(error));
    }
  };

  server.setRequestHandler(SubscribeRequestSchema, (request, extra) => {
    const key = keyOf(request.params.uri, request.params._meta, extra);
    if (!watched.has(key) && watched.size >= maxSubscriptionsPerSession) {
      throw new McpError(ErrorCode.InvalidRequest, `This session already watches ${maxSubscriptionsPerSession} resources; unsubscribe from one first.`, {
        code: 'RESULT_TOO_LARGE',
        limit: maxSubscriptionsPerSession,
      });
    }
    watched.set(key, request.params.uri);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) => {
    watched.delete(keyOf(request.params.uri, request.params._meta, extra));
    return {};
  });

  const announce = (key: string) => {
    const uri = watched.get(key);
    if (uri !== undefined) server.sendResourceUpdated({ uri }).catch(() => undefined);
  };
  const onFileChanged = (event: FileChanged) => announce(`${event.principal}/${event.conversationId}/${event.path}`);
  const onAttachment = (event: { principal: string; conversationId: string; attachment: { path: string } }) =>
    announce(`${event.principal}/${event.conversationId}/${event.attachment.path}`);
  const onResourceUpdated = (event: { uri: string }) => announce(`\u0000${event.uri}`);
  host.on('file-changed', onFileChanged);
  host.on('attachment', onAttachment);
  host.on('resource-updated', onResourceUpdated);
  return () => {
    host.off('file-changed', onFileChanged);
    host.off('attachment', onAttachment);
    host.off('resource-updated', onResourceUpdated);
    watched.clear();
  };
}
