import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Many servers (the reference filesystem server among them) send a text block
 * and a `structuredContent` that only wraps the same text (`{content: text}`).
 * The spill rules prefer structuredContent, which would write a file's lines as
 * one escaped JSON string on a single line; dropping the wrapper lets the text
 * spill as text, line for line. Anything richer is left untouched.
 */
export function normalizeUpstreamResult(result: CallToolResult): CallToolResult {
  const structured = result.structuredContent;
  if (structured === undefined || structured === null || typeof structured !== 'object' || Array.isArray(structured)) return result;
  const members = Object.values(structured);
  if (members.length !== 1 || typeof members[0] !== 'string') return result;
  const texts = (result.content ?? []).filter((block) => block.type === 'text');
  if (texts.length !== 1 || result.content.length !== 1 || texts[0]?.text !== members[0]) return result;
  const { structuredContent: _wrapper, ...rest } = result;
  return rest;
}
