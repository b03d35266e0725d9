import type { ApprovalRequest, ArgumentSource } from './approval.js';
import { formatBytes } from '../util/format.js';

const maxInlineValueChars = 300;
const maxDepth = 4;
const maxItemsShown = 10;
const maxKeysShown = 40;

/**
 * The approval prompt: the target tool and what will actually be sent. Long
 * strings and large values are shown by size and by the file they came from
 * (for delegating calls), not dumped, so the prompt stays readable while the
 * user still sees every argument name and every short value as sent.
 *
 * @example
 * Allow spillway to call github__create_issue?
 * Requested through call_with_args_file (args file args/issue.json, overrides: title, labels).
 * Sends 512,331 bytes:
 * { "title": "Crash in worker", "body": "[500,000 characters from results/0012-get_issue.json#/body]", ... }
 */
export function describeApproval(request: ApprovalRequest): string {
  const lines = [`Allow spillway to call ${request.tool}?`];
  if (request.calledAs !== undefined && request.calledAs.tool !== request.tool) {
    lines.push(`Requested through ${request.calledAs.tool}${describeOrigin(request.sources)}.`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(request.arguments ?? null));
  lines.push(`Sends ${bytes.toLocaleString('en-US')} bytes of arguments:`);
  lines.push(JSON.stringify(summarize(request.arguments, { sources: request.sources ?? [] }), null, 2));
  return lines.join('\n');
}

function describeOrigin(sources: readonly ArgumentSource[] | undefined): string {
  if (sources === undefined || sources.length === 0) return '';
  const base = sources.find((source) => source.pointer === '');
  const overridden = sources.filter((source) => source.pointer !== '').map((source) => source.pointer.slice(1).split('/')[0]);
  const parts: string[] = [];
  if (base !== undefined) parts.push(`args file ${base.from}`);
  if (overridden.length > 0) parts.push(`overrides: ${[...new Set(overridden)].join(', ')}`);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

interface SummarizeOptions {
  sources: readonly ArgumentSource[];
}

/** A copy of a JSON value with long strings and big containers replaced by a size note naming their source. */
export function summarize(value: unknown, options: SummarizeOptions = { sources: [] }, pointer = '', depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= maxInlineValueChars) return value;
    return `${value.slice(0, 120)}… [${value.length.toLocaleString('en-US')} characters${fromNote(options.sources, pointer)}]`;
  }
  if (Array.isArray(value)) {
    if (depth >= maxDepth) return `[array of ${value.length} items, ${formatBytes(sizeOf(value))}${fromNote(options.sources, pointer)}]`;
    const shown = value.slice(0, maxItemsShown).map((item, index) => summarize(item, options, `${pointer}/${index}`, depth + 1));
    if (value.length > maxItemsShown) {
      const rest = value.slice(maxItemsShown);
      shown.push(`… ${value.length - maxItemsShown} more items (${formatBytes(sizeOf(rest))})${fromNote(options.sources, `${pointer}/${maxItemsShown}`)}`);
    }
    return shown;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (depth >= maxDepth) return `{object with ${entries.length} keys, ${formatBytes(sizeOf(value))}${fromNote(options.sources, pointer)}}`;
    const shown: Record<string, unknown> = {};
    for (const [key, member] of entries.slice(0, maxKeysShown)) {
      Object.defineProperty(shown, key, { value: summarize(member, options, `${pointer}/${escapePointer(key)}`, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    if (entries.length > maxKeysShown) {
      const rest = Object.fromEntries(entries.slice(maxKeysShown));
      shown['…'] = `${entries.length - maxKeysShown} more keys (${formatBytes(sizeOf(rest))})`;
    }
    return shown;
  }
  return value;
}

/** " from results/x.json#/0/body" for the most specific source covering `pointer`. */
function fromNote(sources: readonly ArgumentSource[], pointer: string): string {
  let best: ArgumentSource | undefined;
  for (const source of sources) {
    const covers = source.pointer === '' || pointer === source.pointer || pointer.startsWith(`${source.pointer}/`);
    if (covers && (best === undefined || source.pointer.length >= best.pointer.length)) best = source;
  }
  if (best === undefined) return '';
  return best.from === 'overrides' ? ', written by the model' : ` from ${best.from}`;
}

function sizeOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
