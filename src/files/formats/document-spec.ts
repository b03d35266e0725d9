import { Type, type SchemaOptions } from '@sinclair/typebox';
import { SpillwayError } from '../../errors.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { enumOf } from '../../util/schema-builders.js';
import { normalizeSelection, selectionSchema, type Selection } from '../selection/selection.js';

/** A document block after validation; table blocks carry a normalised selection. */
export type DocumentBlock =
  | { type: 'heading'; text: string; level: 1 | 2 | 3 }
  | { type: 'paragraph'; text: string }
  | { type: 'bullets'; items: string[] }
  | { type: 'table'; source: string; title?: string; selection: Selection };

export interface DocumentSpec {
  title: string;
  subtitle?: string;
  blocks: DocumentBlock[];
}

const maxTextChars = 100_000;
const maxBlocks = 2_000;

/**
 * Schema of a spec, for clients and the tool's input schema. It is loose
 * about which members each block type takes; {@link normalizeDocumentSpec}
 * checks that (and sizes), for inline specs and spec files alike.
 */
export function documentSpecSchema(options: SchemaOptions = {}) {
  const block = Type.Object({
    type: enumOf(['heading', 'paragraph', 'bullets', 'table']),
    text: Type.Optional(Type.String({ description: 'heading, paragraph' })),
    level: Type.Optional(enumOf([1, 2, 3], { description: 'heading level, default 1' })),
    items: Type.Optional(Type.Array(Type.String(), { description: 'bullets' })),
    source: Type.Optional(Type.String({ description: 'table: sandbox path of the rows, e.g. "results/0007-query_sql.jsonl"' })),
    title: Type.Optional(Type.String({ description: 'table: caption' })),
    ...selectionSchema,
  });
  return Type.Object(
    {
      title: Type.String({ description: 'Document title (title page / title slide).' }),
      subtitle: Type.Optional(Type.String()),
      blocks: Type.Array(block, { description: 'Content in order.' }),
    },
    { ...options, additionalProperties: false },
  );
}

/**
 * Checks a document spec (inline or read from specPath) and returns it with
 * every table's selection normalised. Each problem names its JSON path.
 */
export function normalizeDocumentSpec(input: unknown, origin: string): DocumentSpec {
  const fail = (where: string, what: string): never => {
    throw new SpillwayError('INVALID_ARGUMENTS', `The document spec${origin} is invalid: ${where} ${what}.`, { field: where });
  };
  if (!isJsonObject(input)) fail('$', 'must be an object {"title", "blocks": [...]}');
  const spec = input as Record<string, unknown>;
  for (const key of Object.keys(spec)) if (!['title', 'subtitle', 'blocks'].includes(key)) fail(`$.${key}`, 'is not a spec property (allowed: title, subtitle, blocks)');
  const text = (value: unknown, where: string): string => {
    if (typeof value !== 'string') fail(where, 'must be a string');
    if ((value as string).length > maxTextChars) fail(where, `is longer than ${maxTextChars} characters`);
    return value as string;
  };
  const title = text(spec.title, '$.title');
  if (!Array.isArray(spec.blocks)) fail('$.blocks', 'must be a list of blocks');
  const rawBlocks = spec.blocks as unknown[];
  if (rawBlocks.length > maxBlocks) fail('$.blocks', `has ${rawBlocks.length} blocks; at most ${maxBlocks} are allowed`);
  const blocks = rawBlocks.map((raw, index): DocumentBlock => {
    const where = `$.blocks[${index}]`;
    if (!isJsonObject(raw)) fail(where, 'must be an object with a "type"');
    const block = raw as Record<string, unknown>;
    const allow = (keys: string[]) => {
      for (const key of Object.keys(block)) if (key !== 'type' && !keys.includes(key)) fail(`${where}.${key}`, `is not allowed in a ${String(block.type)} block (allowed: ${keys.join(', ')})`);
    };
    switch (block.type) {
      case 'heading': {
        allow(['text', 'level']);
        const level = block.level ?? 1;
        if (level !== 1 && level !== 2 && level !== 3) fail(`${where}.level`, 'must be 1, 2 or 3');
        return { type: 'heading', text: text(block.text, `${where}.text`), level: level as 1 | 2 | 3 };
      }
      case 'paragraph':
        allow(['text']);
        return { type: 'paragraph', text: text(block.text, `${where}.text`) };
      case 'bullets': {
        allow(['items']);
        if (!Array.isArray(block.items) || block.items.length === 0) fail(`${where}.items`, 'must be a non-empty list of strings');
        return { type: 'bullets', items: (block.items as unknown[]).map((item, at) => text(item, `${where}.items[${at}]`)) };
      }
      case 'table': {
        allow(['source', 'title', 'columns', 'sort', 'range']);
        if (typeof block.source !== 'string' || block.source.length === 0) fail(`${where}.source`, 'must be the sandbox path of a table, e.g. "results/0007-query_sql.jsonl"');
        const table: DocumentBlock = { type: 'table', source: block.source as string, selection: normalizeSelection(block, `${where.slice(2)}.`) };
        if (block.title !== undefined) table.title = text(block.title, `${where}.title`);
        return table;
      }
      default:
        return fail(`${where}.type`, 'must be one of "heading", "paragraph", "bullets", "table"');
    }
  });
  const result: DocumentSpec = { title, blocks };
  if (spec.subtitle !== undefined) result.subtitle = text(spec.subtitle, '$.subtitle');
  return result;
}
