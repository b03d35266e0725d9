import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IsomorphicHeaders } from '@modelcontextprotocol/sdk/types.js';
import { SpillwayError } from '../errors.js';
import { assertConversationId, assertPrincipal, defaultPrincipal } from '../sandbox/index.js';

/** The `_meta` key a client names its conversation with, on any request. */
export const conversationMetaKey = 'spillway/conversation';
/** The HTTP header a client names its conversation with (lower case, as Node gives headers). */
export const conversationHeader = 'mcp-conversation-id';

/** Whose files, and which conversation's, one MCP request works on. */
export interface RequestScope {
  principal: string;
  conversationId: string;
}

/** What the SDK hands a request handler that matters here (a subset of RequestHandlerExtra). */
export interface ScopeSources {
  /** `request.params._meta` */
  meta?: Record<string, unknown> | undefined;
  authInfo?: AuthInfo | undefined;
  requestInfo?: { headers: IsomorphicHeaders } | undefined;
}

/**
 * Picks the principal and conversation of one request. The principal is what
 * the HTTP front's authentication put in `authInfo.extra.principal` ("local"
 * with no auth, and over stdio). The conversation is `_meta["spillway/conversation"]`,
 * else the `Mcp-Conversation-Id` header, else the session's own (its session id):
 * a client that reconnects names its conversation again and reaches the same
 * files, under its own principal only. Both are checked as folder names.
 */
export function requestScope(sources: ScopeSources, sessionConversation: () => string): RequestScope {
  const principal = principalOf(sources.authInfo);
  const conversationId = fromMeta(sources.meta) ?? fromHeader(sources.requestInfo?.headers) ?? sessionConversation();
  assertPrincipal(principal);
  assertConversationId(conversationId);
  return { principal, conversationId };
}

function principalOf(authInfo: AuthInfo | undefined): string {
  const principal = authInfo?.extra?.['principal'];
  if (principal === undefined) return defaultPrincipal;
  if (typeof principal !== 'string') {
    throw new SpillwayError('PRINCIPAL_INVALID', 'The authenticated principal is not a string.', { reason: 'not-a-string' });
  }
  return principal;
}

function fromMeta(meta: Record<string, unknown> | undefined): string | undefined {
  if (meta === undefined || !Object.hasOwn(meta, conversationMetaKey)) return undefined;
  const value = meta[conversationMetaKey];
  if (typeof value !== 'string') {
    throw new SpillwayError('CONVERSATION_INVALID', `_meta["${conversationMetaKey}"] must be a string naming the conversation.`, { reason: 'not-a-string' });
  }
  return value;
}

function fromHeader(headers: IsomorphicHeaders | undefined): string | undefined {
  const value = headers?.[conversationHeader];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
