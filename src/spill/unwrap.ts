import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A binary block (image/audio/blob) taken out of a result to be written as its own file. */
export interface BinaryPart {
  data: Buffer;
  mimeType: string;
}

/** A tool result with transport wrappers removed: what the data really is. */
export type Unwrapped =
  /** `source`: the JSON text the value was parsed from, when it came as text (lets a table spill reuse it). */
  { kind: 'json'; value: unknown; binaries: BinaryPart[]; source?: string } | { kind: 'text'; text: string; binaries: BinaryPart[] };

/**
 * Unwraps a raw MCP CallToolResult. `structuredContent` wins; otherwise a text
 * block whose text parses as JSON is that JSON (so a JSON payload serialized
 * into a text field is never written as one escaped line), plain text stays
 * text, and image/audio/blob blocks become binary parts.
 */
export function unwrapMcpResult(result: CallToolResult): Unwrapped {
  const binaries: BinaryPart[] = [];
  const texts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'image':
      case 'audio':
        binaries.push({ data: Buffer.from(block.data, 'base64'), mimeType: block.mimeType });
        break;
      case 'resource': {
        const resource = block.resource as { text?: string; blob?: string; mimeType?: string; uri: string };
        if (typeof resource.text === 'string') texts.push(resource.text);
        else if (typeof resource.blob === 'string') {
          binaries.push({ data: Buffer.from(resource.blob, 'base64'), mimeType: resource.mimeType ?? 'application/octet-stream' });
        }
        break;
      }
      case 'resource_link':
        texts.push(`[resource] ${block.name}: ${block.uri}`);
        break;
      default:
        break;
    }
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return { kind: 'json', value: result.structuredContent, binaries };
  }
  if (texts.length === 1) return unwrapText(texts[0] as string, binaries);
  if (texts.length > 1) {
    const parsed = texts.map(tryParseJson);
    if (parsed.every((entry) => entry.ok)) return { kind: 'json', value: parsed.map((entry) => entry.value), binaries };
  }
  return { kind: 'text', text: texts.join('\n'), binaries };
}

/** A plain value returned by a local tool handler. */
export function unwrapValue(value: unknown): Unwrapped {
  if (typeof value === 'string') return { kind: 'text', text: value, binaries: [] };
  if (value instanceof Uint8Array) {
    return { kind: 'text', text: '', binaries: [{ data: Buffer.from(value), mimeType: 'application/octet-stream' }] };
  }
  return { kind: 'json', value: value === undefined ? null : value, binaries: [] };
}

function unwrapText(text: string, binaries: BinaryPart[]): Unwrapped {
  const parsed = tryParseJson(text);
  // Only containers count as "JSON inside text": a bare number or word stays text.
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) return { kind: 'json', value: parsed.value, binaries, source: text };
  return { kind: 'text', text, binaries };
}

function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
