import type { ApprovalRequest, ArgumentSource } from './approval.js';
import { formatBytes } from '../util/format.js';
import { maxShownArgumentChars, sha256Hex } from './approval-digest.js';

const maxInlineValueChars = 400;
/** A cut string keeps this many characters at each end: a command appended to a long text stays visible. */
const shownEndChars = 160;
const maxDepth = 4;
const maxItemsShown = 10;
const maxKeysShown = 40;

/**
 * The approval prompt: the target tool and exactly what will be sent. When
 * the arguments fit (about 8,000 characters of pretty JSON) they are shown
 * whole, byte for byte, with their SHA-256. When they do not, the prompt says
 * so first, in capitals, shows a partial view in which every omission is
 * marked NOT SHOWN (long strings keep their head *and* tail, where an
 * appended command would sit), and names the file under outputs/ that holds
 * the full arguments and the SHA-256 the call is bound to. No view that
 * leaves something out reads as complete.
 *
 * @example
 * Allow spillway to call github__create_issue?
 * Requested through call_with_args_file (args file args/issue.json; overrides: title, labels).
 * The arguments are 512,331 bytes: TOO LARGE TO SHOW IN FULL. Below is a PARTIAL view; parts marked NOT SHOWN are sent too.
 * Read all of it in outputs/approvals/call_1-github__create_issue.json before deciding. SHA-256 of what is sent: 3f5a…
 */
export function describeApproval(request: ApprovalRequest): string {
  const lines = [`Allow spillway to call ${request.tool}?`];
  if (request.calledAs !== undefined && request.calledAs.tool !== request.tool) {
    lines.push(`Requested through ${request.calledAs.tool}${describeOrigin(request.sources)}.`);
  }
  if (request.secrets !== undefined && request.secrets.length > 0) {
    const where = request.secrets.slice(0, 10).map((secret) => `${secret.kind}${secret.field === undefined ? '' : ` at ${secret.field}`}`);
    lines.push(
      `WARNING: the arguments hold ${request.secrets.length === 1 ? 'a value that looks' : `${request.secrets.length} values that look`} like a secret (${where.join('; ')}); approving sends ${request.secrets.length === 1 ? 'it' : 'them'} to ${request.tool}.`,
    );
  }
  const pretty = visibleJson(JSON.stringify(request.arguments ?? {}, null, 2));
  const compact = request.digest?.text ?? JSON.stringify(request.arguments ?? {});
  const sha256 = request.digest?.sha256 ?? sha256Hex(compact);
  const bytes = Buffer.byteLength(compact).toLocaleString('en-US');
  const shownInFull = request.digest?.shownInFull ?? pretty.length <= maxShownArgumentChars;
  if (shownInFull) {
    lines.push(`It sends exactly these arguments, shown in full (${bytes} bytes; SHA-256 ${sha256}):`);
    lines.push(pretty);
    return lines.join('\n');
  }
  lines.push(`The arguments are ${bytes} bytes: TOO LARGE TO SHOW IN FULL. Below is a PARTIAL view; every part marked NOT SHOWN is sent too.`);
  lines.push(
    request.digest?.argumentsFile !== undefined
      ? `Read all of it in ${request.digest.argumentsFile} (your downloads for this conversation) before deciding. SHA-256 of what is sent: ${sha256}; the call runs only with exactly those bytes.`
      : `The full arguments could not be saved for you to read; decline unless the partial view is enough. SHA-256 of what is sent: ${sha256}.`,
  );
  lines.push(visibleJson(JSON.stringify(summarize(request.arguments, { sources: request.sources ?? [] }), null, 2)));
  return lines.join('\n');
}

/**
 * JSON text with every invisible or reordering character written as a
 * \uXXXX escape (format characters such as bidi overrides and zero-width
 * spaces, line and paragraph separators, private-use and unassigned code
 * points): still the same JSON value, but what the user reads is what is
 * sent, with no text hidden or visually reordered.
 */
export function visibleJson(text: string): string {
  return text.replace(/[\p{Cf}\p{Co}\p{Cn}\u2028\u2029]/gu, (character) =>
    character
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );
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

/** A copy of a JSON value with long strings and big containers cut, every cut marked NOT SHOWN with its size and source. */
export function summarize(value: unknown, options: SummarizeOptions = { sources: [] }, pointer = '', depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= maxInlineValueChars) return value;
    const hidden = value.length - 2 * shownEndChars;
    return `${value.slice(0, shownEndChars)} …[NOT SHOWN: ${hidden.toLocaleString('en-US')} of ${value.length.toLocaleString('en-US')} characters${fromNote(options.sources, pointer)}]… ${value.slice(-shownEndChars)}`;
  }
  if (Array.isArray(value)) {
    if (depth >= maxDepth) return `[NOT SHOWN: array of ${value.length} items, ${formatBytes(sizeOf(value))}${fromNote(options.sources, pointer)}]`;
    const shown = value.slice(0, maxItemsShown).map((item, index) => summarize(item, options, `${pointer}/${index}`, depth + 1));
    if (value.length > maxItemsShown) {
      const rest = value.slice(maxItemsShown);
      shown.push(
        `[NOT SHOWN: ${value.length - maxItemsShown} more items (${formatBytes(sizeOf(rest))})${fromNote(options.sources, `${pointer}/${maxItemsShown}`)}]`,
      );
    }
    return shown;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (depth >= maxDepth) return `{NOT SHOWN: object with ${entries.length} keys, ${formatBytes(sizeOf(value))}${fromNote(options.sources, pointer)}}`;
    const shown: Record<string, unknown> = {};
    for (const [key, member] of entries.slice(0, maxKeysShown)) {
      Object.defineProperty(shown, key, {
        value: summarize(member, options, `${pointer}/${escapePointer(key)}`, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (entries.length > maxKeysShown) {
      const rest = entries.slice(maxKeysShown);
      const names = rest
        .slice(0, 20)
        .map(([key]) => JSON.stringify(key))
        .join(', ');
      shown['…NOT SHOWN'] =
        `${entries.length - maxKeysShown} more keys (${formatBytes(sizeOf(Object.fromEntries(rest)))}): ${names}${rest.length > 20 ? ', …' : ''}`;
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
