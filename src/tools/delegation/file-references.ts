import { SpillwayError } from '../../errors.js';
import { readBounded, type ConversationSandbox, type OpenedFile } from '../../sandbox/index.js';
import { formatBytes } from '../../util/format.js';
import { parseJsonOr } from '../../util/safe-json.js';
import { looksBinary } from '../reread/read-lines.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { formatJsonPointer, lookupJsonPointer, parseJsonPointer } from './json-pointer.js';
import { readJsonlRow } from './jsonl-row.js';

/** `{"$file": path}` or `{"$file": path, "$pointer": "/0/body"}` inside overrides. */
export interface FileReference {
  file: string;
  pointer?: string;
}

/** A JSON file read only to pick one value out of it may be this large. */
export const maxPointerSourceBytes = 64 * 1024 * 1024;

/**
 * The reference an overrides value stands for, or undefined when the value is
 * an ordinary object. An object that uses `$file`/`$pointer` any other way is
 * an error, so a typo never travels to the target as literal data.
 */
export function asFileReference(value: unknown, where: readonly string[]): FileReference | undefined {
  if (!isJsonObject(value) || (!Object.hasOwn(value, '$file') && !Object.hasOwn(value, '$pointer'))) return undefined;
  const at = describeLocation(where);
  const extra = Object.keys(value).filter((key) => key !== '$file' && key !== '$pointer');
  if (typeof value.$file !== 'string' || value.$file.length === 0) {
    throw new SpillwayError('FILE_REF_INVALID', `The file reference at ${at} needs "$file": a sandbox path such as "results/0012-get_issue.json".`, {
      at: formatJsonPointer(where),
    });
  }
  if (extra.length > 0) {
    throw new SpillwayError(
      'FILE_REF_INVALID',
      `The file reference at ${at} has members other than "$file" and "$pointer" (${extra.join(', ')}). A reference stands for a whole value: put other members beside it in the parent object.`,
      { at: formatJsonPointer(where), file: value.$file },
    );
  }
  if (Object.hasOwn(value, '$pointer') && typeof value.$pointer !== 'string') {
    throw new SpillwayError('FILE_REF_INVALID', `The "$pointer" at ${at} must be a string such as "/0/body".`, {
      at: formatJsonPointer(where),
      file: value.$file,
    });
  }
  return value.$pointer === undefined ? { file: value.$file } : { file: value.$file, pointer: value.$pointer as string };
}

/** "overrides.body" / "overrides.items[2]" for messages. */
export function describeLocation(where: readonly string[]): string {
  return `overrides${where.map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`)).join('')}`;
}

/** How a referenced file is read: by extension. */
type FileKind = 'json' | 'jsonl' | 'text';

function kindOf(relative: string): FileKind {
  if (relative.endsWith('.jsonl')) return 'jsonl';
  if (relative.endsWith('.json')) return 'json';
  return 'text';
}

/**
 * Resolves file references against one conversation's sandbox: text files
 * become a string, .json files their value, .jsonl tables an array of rows
 * (so "/3/body" is row 3's body, rows counted from 0). A whole file may be at
 * most `maxBytes`; with a pointer, a JSON file is read up to
 * {@link maxPointerSourceBytes} and a JSONL table is streamed to the row.
 */
export class FileReferenceResolver {
  private readonly cache = new Map<string, unknown>();
  /** Bytes placed whole so far, over all references (each placement counts: the value is sent once per place). */
  private placedBytes = 0;
  /** Bytes of JSON files read to pick a value with a pointer, over all distinct files. */
  private pointerSourceBytes = 0;

  constructor(
    private readonly sandbox: ConversationSandbox,
    private readonly maxBytes: number,
  ) {}

  /**
   * Charges a file's size (from stat of the opened file) before a byte of it
   * is read: whole files against args.maxBytes, all references together;
   * JSON files read for a pointer against {@link maxPointerSourceBytes}, all
   * together. A few references to large files cannot add up past the cap.
   */
  private charge(file: OpenedFile, forPointer: boolean, at: string): void {
    const size = file.stats.size;
    if (forPointer) {
      if (this.cache.has(file.relative)) return;
      if (this.pointerSourceBytes + size > maxPointerSourceBytes) {
        throw new SpillwayError(
          'RESULT_TOO_LARGE',
          `The file reference at ${at} points into ${file.relative} (${formatBytes(size)}); JSON files read for pointers may be at most ${formatBytes(maxPointerSourceBytes)} together, and ${formatBytes(this.pointerSourceBytes)} were read already. Extract the values with run_script into args/ first.`,
          { file: file.relative, bytes: size, readBytes: this.pointerSourceBytes, maxBytes: maxPointerSourceBytes },
        );
      }
      this.pointerSourceBytes += size;
      return;
    }
    if (this.placedBytes + size > this.maxBytes) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `The file reference at ${at} names ${file.relative} (${formatBytes(size)}); the files placed by references may be at most ${formatBytes(this.maxBytes)} together (args.maxBytes), and ${formatBytes(this.placedBytes)} were placed already. Pick single values with "$pointer", or reduce the data with run_script first.`,
        { file: file.relative, bytes: size, placedBytes: this.placedBytes, maxBytes: this.maxBytes },
      );
    }
    this.placedBytes += size;
  }

  async resolve(reference: FileReference, where: readonly string[]): Promise<unknown> {
    const at = describeLocation(where);
    let file: OpenedFile;
    try {
      file = await this.sandbox.openRead(reference.file);
    } catch (error) {
      if (SpillwayError.is(error))
        throw new SpillwayError(error.code, `The file reference at ${at}: ${error.message}`, {
          ...error.details,
          at: formatJsonPointer(where),
          file: reference.file,
        });
      throw error;
    }
    try {
      const segments = reference.pointer === undefined ? [] : parseJsonPointer(reference.pointer);
      const kind = kindOf(file.relative);
      if (await looksBinary(file)) {
        throw new SpillwayError(
          'FILE_REF_INVALID',
          `The file reference at ${at} names ${file.relative}, a binary file; only text, JSON and JSONL files can be placed into arguments.`,
          {
            at: formatJsonPointer(where),
            file: file.relative,
          },
        );
      }
      if (kind === 'text' && segments.length > 0) {
        throw new SpillwayError(
          'FILE_REF_INVALID',
          `The file reference at ${at} gives a "$pointer", but ${file.relative} is a text file; pointers work in .json and .jsonl files. Drop "$pointer" to send the whole text.`,
          {
            at: formatJsonPointer(where),
            file: file.relative,
          },
        );
      }
      if (!(kind === 'jsonl' && segments.length > 0)) this.charge(file, segments.length > 0, at);
      const value = kind === 'jsonl' && segments.length > 0 ? await this.jsonlRow(file, segments, at) : await this.whole(file, kind, segments.length > 0, at);
      if (segments.length === 0) return value;
      const rest = kind === 'jsonl' ? segments.slice(1) : segments;
      const found = lookupJsonPointer(value, rest);
      if (!found.found) {
        const where2 = kind === 'jsonl' ? `/${segments[0]}${found.at}` : found.at;
        throw new SpillwayError(
          'FILE_REF_INVALID',
          `The file reference at ${at}: ${file.relative} has nothing at "${reference.pointer}": at "${where2}" ${found.reason}.`,
          {
            at: formatJsonPointer(where),
            file: file.relative,
            pointer: reference.pointer,
          },
        );
      }
      return found.value;
    } finally {
      await file.handle.close();
    }
  }

  /** A whole file's value (cached per call: one spill may feed several arguments). */
  private async whole(file: OpenedFile, kind: FileKind, forPointer: boolean, at: string): Promise<unknown> {
    const cached = this.cache.get(file.relative);
    if (cached !== undefined) return cached;
    const limit = forPointer ? maxPointerSourceBytes : this.maxBytes;
    if (file.stats.size > limit) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        forPointer
          ? `The file reference at ${at} points into ${file.relative}, which is ${formatBytes(file.stats.size)}; a JSON file read for a pointer may be at most ${formatBytes(limit)}. Extract the value with run_script into args/ first.`
          : `The file reference at ${at} names ${file.relative}, which is ${formatBytes(file.stats.size)}; the expanded arguments may be at most ${formatBytes(limit)} (args.maxBytes). Pick one value with "$pointer", or reduce the data with run_script first.`,
        { file: file.relative, bytes: file.stats.size, maxBytes: limit },
      );
    }
    const text = (await readBounded(file.handle, { maxBytes: limit, name: file.relative })).toString('utf8');
    let value: unknown;
    if (kind === 'text') value = text;
    else if (kind === 'json') value = parseFile(text, file.relative, at);
    else
      value = text
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line, index) => parseFile(line, `${file.relative} line ${index + 1}`, at));
    this.cache.set(file.relative, value);
    return value;
  }

  /** Row `segments[0]` of a JSONL table, streamed: a 1 GB table costs one line of memory. */
  private async jsonlRow(file: OpenedFile, segments: readonly string[], at: string): Promise<unknown> {
    const rowSegment = segments[0] as string;
    if (!/^(0|[1-9]\d*)$/.test(rowSegment)) {
      throw new SpillwayError(
        'FILE_REF_INVALID',
        `The file reference at ${at}: ${file.relative} is a JSONL table; its pointer starts with a row number from 0 (e.g. "/3/body"), not "${rowSegment}".`,
        {
          file: file.relative,
        },
      );
    }
    const wanted = Number(rowSegment);
    // Scanned as bytes: rows before it never become strings, and the row itself is capped.
    const lookup = await readJsonlRow(file.handle, wanted, maxPointerSourceBytes);
    if (lookup.found === true) return parseFile(lookup.text, `${file.relative} line ${lookup.line}`, at);
    if (lookup.found === 'too-large') {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `The file reference at ${at}: row ${wanted} of ${file.relative} (line ${lookup.line}) is ${formatBytes(lookup.bytes)}; a row read for a pointer may be at most ${formatBytes(maxPointerSourceBytes)}. Extract the value with run_script into args/ first.`,
        { file: file.relative, row: wanted, bytes: lookup.bytes, maxBytes: maxPointerSourceBytes },
      );
    }
    const row = lookup.rows - 1;
    throw new SpillwayError('FILE_REF_INVALID', `The file reference at ${at}: ${file.relative} has ${row + 1} rows (0–${row}); row ${wanted} does not exist.`, {
      file: file.relative,
      rows: row + 1,
    });
  }
}

function parseFile(text: string, name: string, at: string): unknown {
  return parseJsonOr(
    text,
    (reason) =>
      new SpillwayError(
        'INVALID_JSON',
        `The file reference at ${at}: ${name} is not valid JSON (${reason}). Name a .json/.jsonl file holding JSON, or a text file to send its text.`,
        { file: name },
      ),
  );
}
