import type { SchemaOptions } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { enumOf } from '../../util/schema-builders.js';
import { checkLocale } from '../columns/format-values.js';
import { checkTimeZone } from '../columns/iso-date.js';
import { fontFamilyPattern } from '../../util/font-family-name.js';
import { checkFontFamily } from './font-family.js';
import { normalizeSelection, selectionSchema, type Selection } from '../selection/selection.js';

/** A document block after validation; table blocks carry a normalised selection. */
export type DocumentBlock =
  | { type: 'heading'; text: string; level: 1 | 2 | 3 }
  | { type: 'paragraph'; text: string }
  | { type: 'bullets' | 'numbered'; items: ListEntry[] }
  | { type: 'table'; source: string; title?: string; selection: Selection }
  /** Rendered before the task reaches a worker (build_chart's path), then a figure. */
  | { type: 'chart'; source: string; spec: Record<string, unknown>; title?: string; selection: Selection }
  /** A PNG, JPEG or SVG from the sandbox; read before the task reaches a worker, then a figure. */
  | { type: 'image'; path: string; title?: string }
  | FigureBlock;

/** A picture ready to embed: what chart and image blocks become before a worker writes the document. */
export interface FigureBlock {
  type: 'figure';
  data: Uint8Array;
  format: 'png' | 'jpg';
  /** Pixels. */
  width: number;
  height: number;
  title?: string;
  /** The chart's source or the image's path, for notes. */
  from: string;
}

/** A list item: its text and the items nested under it (up to three levels). */
export interface ListEntry {
  text: string;
  items: ListEntry[];
}

export interface DocumentSpec {
  title: string;
  subtitle?: string;
  /** BCP 47 locale of numbers and dates in tables (default en-US). */
  locale?: string;
  /** IANA zone that timestamps with offsets and epoch numbers are shown in (default UTC). */
  timeZone?: string;
  /** DOCX pages; default: landscape when a table is too wide for portrait. */
  orientation?: 'portrait' | 'landscape';
  /** The one font family of headings, text and tables (default: documents.fontFamily). */
  fontFamily?: string;
  blocks: DocumentBlock[];
}

const maxListDepth = 3;
const maxListItems = 1_000;

const maxTextChars = 100_000;
const maxBlocks = 2_000;

/**
 * Schema of a spec, for clients and the tool's input schema. It is loose
 * about which members each block type takes; {@link normalizeDocumentSpec}
 * checks that (and sizes), for inline specs and spec files alike.
 */
export function documentSpecSchema(options: SchemaOptions = {}) {
  const block = Type.Object({
    type: enumOf(['heading', 'paragraph', 'bullets', 'numbered', 'table', 'chart', 'image']),
    text: Type.Optional(
      Type.String({ description: 'heading, paragraph (inline **bold**, *italic*, `code`, [link](https://…); a blank line starts a new paragraph)' }),
    ),
    level: Type.Optional(enumOf([1, 2, 3], { description: 'heading level, default 1' })),
    items: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'bullets, numbered: strings, or {"text": "...", "items": [...]} for a nested list (three levels)' }),
    ),
    source: Type.Optional(Type.String({ description: 'table: sandbox path of the rows, e.g. "results/0007-query_sql.jsonl"' })),
    title: Type.Optional(Type.String({ description: 'table, chart, image: caption' })),
    spec: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'chart: a Vega-Lite spec WITHOUT data (as build_chart); the rows come from source' }),
    ),
    path: Type.Optional(Type.String({ description: 'image: sandbox path of a PNG, JPEG or SVG, e.g. "outputs/tickets-chart.png"' })),
    ...selectionSchema,
  });
  return Type.Object(
    {
      title: Type.String({ description: 'Document title (title page / title slide).' }),
      subtitle: Type.Optional(Type.String()),
      locale: Type.Optional(Type.String({ description: 'Locale of numbers and dates in tables, e.g. "de-DE". Default "en-US".' })),
      timeZone: Type.Optional(
        Type.String({
          description:
            'IANA time zone that timestamps with UTC offsets and epoch numbers in tables are shown in, e.g. "Europe/Berlin"; their headers name it. Default "UTC".',
        }),
      ),
      orientation: Type.Optional(enumOf(['portrait', 'landscape'], { description: 'DOCX pages. Default: landscape when a table is too wide for portrait.' })),
      fontFamily: Type.Optional(
        Type.String({
          pattern: fontFamilyPattern,
          description: 'Font family of headings, text and tables alike, e.g. "Calibri". Default: the host\'s documents.fontFamily (Arial).',
        }),
      ),
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
  for (const key of Object.keys(spec))
    if (!['title', 'subtitle', 'locale', 'timeZone', 'orientation', 'fontFamily', 'blocks'].includes(key))
      fail(`$.${key}`, 'is not a spec property (allowed: title, subtitle, locale, timeZone, orientation, fontFamily, blocks)');
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
      for (const key of Object.keys(block))
        if (key !== 'type' && !keys.includes(key)) fail(`${where}.${key}`, `is not allowed in a ${String(block.type)} block (allowed: ${keys.join(', ')})`);
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
      case 'bullets':
      case 'numbered': {
        allow(['items']);
        let count = 0;
        const entries = (items: unknown, at: string, depth: number): ListEntry[] => {
          if (!Array.isArray(items) || items.length === 0) fail(at, 'must be a non-empty list of strings or {"text", "items"} objects');
          return (items as unknown[]).map((item, position) => {
            const here = `${at}[${position}]`;
            count += 1;
            if (count > maxListItems) fail(`${where}.items`, `holds more than ${maxListItems} items`);
            if (typeof item === 'string') return { text: text(item, here), items: [] };
            if (!isJsonObject(item)) fail(here, 'must be a string or {"text": "...", "items": [...]}');
            const entry = item as Record<string, unknown>;
            for (const key of Object.keys(entry))
              if (key !== 'text' && key !== 'items') fail(`${here}.${key}`, 'is not allowed in a list item (allowed: text, items)');
            if (entry.items !== undefined && depth + 1 >= maxListDepth) fail(`${here}.items`, `nests deeper than ${maxListDepth} levels`);
            return { text: text(entry.text, `${here}.text`), items: entry.items === undefined ? [] : entries(entry.items, `${here}.items`, depth + 1) };
          });
        };
        return { type: block.type, items: entries(block.items, `${where}.items`, 0) };
      }
      case 'table': {
        allow(['source', 'title', 'columns', 'sort', 'range']);
        if (typeof block.source !== 'string' || block.source.length === 0)
          fail(`${where}.source`, 'must be the sandbox path of a table, e.g. "results/0007-query_sql.jsonl"');
        const table: DocumentBlock = { type: 'table', source: block.source as string, selection: normalizeSelection(block, `${where.slice(2)}.`) };
        if (block.title !== undefined) table.title = text(block.title, `${where}.title`);
        return table;
      }
      case 'chart': {
        allow(['source', 'spec', 'title', 'columns', 'sort', 'range']);
        if (typeof block.source !== 'string' || block.source.length === 0)
          fail(`${where}.source`, 'must be the sandbox path of a table, e.g. "results/0009-query_files.jsonl"');
        if (!isJsonObject(block.spec)) fail(`${where}.spec`, 'must be a Vega-Lite spec object without data, e.g. {"mark": "bar", "encoding": {...}}');
        const chart: DocumentBlock = {
          type: 'chart',
          source: block.source as string,
          spec: block.spec as Record<string, unknown>,
          selection: normalizeSelection(block, `${where.slice(2)}.`),
        };
        if (block.title !== undefined) chart.title = text(block.title, `${where}.title`);
        return chart;
      }
      case 'image': {
        allow(['path', 'title']);
        if (typeof block.path !== 'string' || block.path.length === 0)
          fail(`${where}.path`, 'must be the sandbox path of a PNG, JPEG or SVG, e.g. "outputs/tickets-chart.png"');
        const image: DocumentBlock = { type: 'image', path: block.path as string };
        if (block.title !== undefined) image.title = text(block.title, `${where}.title`);
        return image;
      }
      default:
        return fail(`${where}.type`, 'must be one of "heading", "paragraph", "bullets", "numbered", "table", "chart", "image"');
    }
  });
  const result: DocumentSpec = { title, blocks };
  if (spec.subtitle !== undefined) result.subtitle = text(spec.subtitle, '$.subtitle');
  if (spec.locale !== undefined) result.locale = checkLocale(text(spec.locale, '$.locale'), '$.locale');
  if (spec.timeZone !== undefined) result.timeZone = checkTimeZone(text(spec.timeZone, '$.timeZone'), '$.timeZone');
  if (spec.fontFamily !== undefined) result.fontFamily = checkFontFamily(text(spec.fontFamily, '$.fontFamily'), '$.fontFamily');
  if (spec.orientation !== undefined) {
    if (spec.orientation !== 'portrait' && spec.orientation !== 'landscape')
      fail('$.orientation', 'must be "portrait" or "landscape" (leave it out to choose by the tables)');
    result.orientation = spec.orientation as 'portrait' | 'landscape';
  }
  return result;
}
