import { createHash } from 'node:crypto';
import { Type } from '../util/type-builder.js';
import { defineTool } from '../host/define-tool.js';
import { formatCount } from '../util/format.js';

/** Long values are summarised in the answer; the digest proves what arrived. */
function summarise(value: unknown): unknown {
  if (Array.isArray(value)) return `a list of ${formatCount(value.length)} items (${formatCount(JSON.stringify(value).length)} characters)`;
  if (typeof value === 'string' && value.length > 200) return `${value.slice(0, 120)}… (${formatCount(value.length)} characters)`;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, summarise(member)]));
  return value;
}

/**
 * A local tool that cannot read files and confirms what it received: the
 * walkthrough's stand-in for an upstream tool (an issue tracker, a mailer)
 * that needs data as arguments. It answers briefly, as such tools do: sizes,
 * a SHA-256 of the arguments as received, and short values as they came.
 */
export const echoTool = defineTool({
  name: 'echo',
  description:
    'Demo tool: confirms the arguments it received (short values as they came, long ones summarised, plus their size and SHA-256). It cannot read sandbox files: to send it file contents, use call_with_args_file with {"$file": PATH} references.',
  inputSchema: Type.Object({}, { additionalProperties: true }),
  annotations: { title: 'Echo (demo)', readOnlyHint: true, openWorldHint: false },
  handler(args) {
    const text = JSON.stringify(args);
    return {
      value: {
        receivedCharacters: text.length,
        sha256: createHash('sha256').update(text).digest('hex'),
        received: summarise(args),
      },
    };
  },
});
