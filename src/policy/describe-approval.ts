import type { ApprovalRequest } from '../host/tool.js';

const maxInlineValueChars = 300;

/**
 * The approval prompt: the target tool and what will actually be sent. Long
 * strings and large values are shown by size (and where they came from), not
 * dumped, so the prompt stays readable.
 */
export function describeApproval(request: ApprovalRequest): string {
  const lines = [`Allow spillway to call ${request.tool} with these arguments?`];
  if (request.calledAs !== undefined && request.calledAs.tool !== request.tool) {
    lines.push(`(requested through ${request.calledAs.tool} ${JSON.stringify(summarize(request.calledAs.arguments))})`);
  }
  lines.push(JSON.stringify(summarize(request.arguments), null, 2));
  return lines.join('\n');
}

/** A copy of a JSON value with long strings and big containers replaced by a size note. */
export function summarize(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= maxInlineValueChars) return value;
    return `${value.slice(0, 120)}… [${value.length.toLocaleString('en-US')} characters in all]`;
  }
  if (Array.isArray(value)) {
    if (depth >= 3) return `[array of ${value.length} items]`;
    const shown = value.slice(0, 10).map((item) => summarize(item, depth + 1));
    if (value.length > 10) shown.push(`… ${value.length - 10} more items`);
    return shown;
  }
  if (typeof value === 'object' && value !== null) {
    if (depth >= 3) return `{object with ${Object.keys(value).length} keys}`;
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, summarize(member, depth + 1)]));
  }
  return value;
}
