import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolContext } from '../../host/tool.js';
import { isTempName, PinnedFolder, type ConversationSandbox } from '../../sandbox/index.js';
import { conversationFolders, metadataSuffix } from '../../sandbox/layout.js';
import { formatBytes, formatCount } from '../../util/format.js';
import { compileUserRegExp, userRegExpSyntax } from '../../util/safe-regexp.js';
import { readLinePieces, type LinePiece } from './line-splitter.js';
import { capLine, looksBinary, searchCheckChars, searchTimeLimitMs } from './read-lines.js';
import { searchFilesOutput } from './reread-output.js';
import { readsOnly } from '../tool-annotations.js';

/** Matches returned when `limit` is not given, and the most one call may ask for. */
export const searchFilesDefaultLimit = 100;
export const searchFilesMaxLimit = 1000;
/** Bytes one call reads across all files at most. */
export const searchFilesMaxBytes = 64 * 1024 * 1024;
/** A line longer than this is matched in overlapping pieces (a regular expression may miss a match that spans two). */
export const searchFilesPieceChars = 64 * 1024;
const chunkBytes = 256 * 1024;
const maxFiles = 10_000;

export interface FileMatch {
  file: string;
  line: number;
  text: string;
}

interface SearchState {
  matches: FileMatch[];
  limit: number;
  bytesRead: number;
  maxBytes: number;
  filesSearched: number;
  skipped: string[];
  stopped?: string;
  deadline: number;
}

export const searchFilesTool = defineTool({
  name: 'search_files',
  readsConversationFiles: true,
  longRunning: true,
  outputSchema: searchFilesOutput,
  description: [
    'Find a text (or an RE2 regular expression with regex: true) across ALL files of this conversation at once, or the files under dir, or those matching glob (e.g. "results/*.jsonl"); returns each matching line with its file and line number, sorted by file and line.',
    'Use it to answer "which of my results mention X?" without reading them; use search_file for one known file, then read_file with offset for the surroundings.',
    'field: "body" searches only that field of each JSONL row (the line number is the row). Case-sensitive; capped in matches (limit) and in bytes read, with a note when a cap stops it. Earlier search_files answers saved in results/ are not searched again.',
  ].join(' '),
  inputSchema: Type.Object(
    {
      pattern: Type.String({
        minLength: 1,
        maxLength: 4096,
        description: `Text to find (or a regular expression when regex is true: ${userRegExpSyntax}).`,
      }),
      dir: Type.Optional(Type.String({ description: 'Search only under this folder, relative to the conversation folder (e.g. "results").' })),
      glob: Type.Optional(
        Type.String({ description: 'Search only files whose path matches, e.g. "results/*.jsonl" (* within a folder, ** across folders, ? one character).' }),
      ),
      regex: Type.Optional(Type.Boolean({ description: 'Treat pattern as a regular expression. Default false.' })),
      field: Type.Optional(Type.String({ minLength: 1, description: 'Search only this top-level field of each JSONL row (other files are skipped).' })),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: searchFilesMaxLimit,
          description: `Most matches to return (default ${searchFilesDefaultLimit}, at most ${searchFilesMaxLimit}).`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  annotations: readsOnly('Search all files of the conversation'),
  async handler(args, context) {
    if (args.dir !== undefined && args.glob !== undefined) {
      throw new SpillwayError('INVALID_ARGUMENTS', 'Give dir or glob, not both: dir searches a folder, glob picks files by path (e.g. "results/*.jsonl").', {
        dir: args.dir,
        glob: args.glob,
      });
    }
    const matches = args.regex === true ? regexMatcher(args.pattern) : (text: string) => text.includes(args.pattern);
    const files = await candidateFiles(context.sandbox, args);
    const state: SearchState = {
      matches: [],
      limit: args.limit ?? searchFilesDefaultLimit,
      bytesRead: 0,
      maxBytes: searchFilesMaxBytes,
      filesSearched: 0,
      skipped: [],
      deadline: performance.now() + searchTimeLimitMs,
    };
    const overlap = args.regex === true ? 0 : Math.min(args.pattern.length - 1, searchFilesPieceChars - 1);
    for (const file of files.paths) {
      if (state.stopped !== undefined) break;
      await searchOne(file, { context, state, matches, overlap, ...(args.field === undefined ? {} : { field: args.field }) });
    }
    const notes: string[] = [];
    if (files.more > 0) notes.push(`${formatCount(files.more)} more files were not searched (cap ${formatCount(maxFiles)}); narrow with dir or glob.`);
    if (state.stopped !== undefined)
      notes.push(`Stopped early: ${state.stopped}. Files after that point were not searched; narrow with dir, glob or a more specific pattern.`);
    if (state.skipped.length > 0)
      notes.push(`Not searched: ${state.skipped.slice(0, 10).join('; ')}${state.skipped.length > 10 ? `; and ${state.skipped.length - 10} more` : ''}.`);
    const summary =
      state.matches.length === 0
        ? `No line in ${formatCount(state.filesSearched)} files (${formatBytes(state.bytesRead)}) matches ${JSON.stringify(args.pattern)}.`
        : `${formatCount(state.matches.length)} matching line${state.matches.length === 1 ? '' : 's'} in ${formatCount(new Set(state.matches.map((match) => match.file)).size)} of ${formatCount(state.filesSearched)} files searched (${formatBytes(state.bytesRead)} read).`;
    return {
      value: {
        summary,
        matches: state.matches,
        filesSearched: state.filesSearched,
        bytesRead: state.bytesRead,
        ...(notes.length > 0 ? { notes } : {}),
      },
    };
  },
});

function regexMatcher(pattern: string): (text: string) => boolean {
  const regex = compileUserRegExp(pattern, 'u');
  return (text) => regex.test(text);
}

interface SearchOne {
  context: ToolContext;
  state: SearchState;
  matches: (text: string) => boolean;
  overlap: number;
  field?: string;
}

async function searchOne(relative: string, search: SearchOne): Promise<void> {
  const { context, state, field } = search;
  if (field !== undefined && !relative.endsWith('.jsonl')) return;
  let file;
  try {
    // The sandbox's own checks: inside the conversation, no symlink, no hard link, a regular file.
    file = await context.sandbox.openRead(relative);
  } catch (error) {
    state.skipped.push(`${relative} (${SpillwayError.is(error) ? error.code : 'unreadable'})`);
    return;
  }
  try {
    if (await looksBinary(file)) return;
    state.filesSearched += 1;
    const pieces = readLinePieces(file.handle, {
      chunkBytes,
      maxPieceChars: searchFilesPieceChars,
      overlap: search.overlap,
      maxBytes: state.maxBytes - state.bytesRead,
      onBytes: (bytes) => {
        state.bytesRead += bytes;
        fileBytes += bytes;
      },
    });
    let lastMatchedLine = 0;
    let seen = 0;
    let checkedChars = 0;
    let fileBytes = 0;
    for await (const piece of pieces) {
      seen += 1;
      checkedChars += piece.text.length;
      if (seen % 256 === 0 || checkedChars >= searchCheckChars) {
        checkedChars = 0;
        if (context.signal.aborted) state.stopped = 'the call was cancelled';
        else if (performance.now() > state.deadline) state.stopped = `it ran longer than ${searchTimeLimitMs / 1000} s`;
        if (state.stopped !== undefined) return;
      }
      if (piece.line === lastMatchedLine) continue;
      const text = field === undefined ? piece.text : fieldText(piece, field, relative, state);
      if (text === undefined || !search.matches(text)) continue;
      lastMatchedLine = piece.line;
      if (state.matches.length >= state.limit) {
        state.stopped = `the match cap was reached (${formatCount(state.limit)}; pass a higher limit, at most ${formatCount(searchFilesMaxLimit)})`;
        return;
      }
      const shown = capLine(text, context.config.reread.maxLineChars);
      state.matches.push({
        file: relative,
        line: piece.line,
        text: piece.cut ? `${shown} [part of line ${piece.line}, which is over ${formatBytes(searchFilesPieceChars)}]` : shown,
      });
    }
    if (fileBytes < file.stats.size) {
      state.stopped = `the byte cap was reached (${formatBytes(state.maxBytes)} read; ${relative} was searched only in part)`;
    }
  } finally {
    await file.handle.close();
  }
}

/** The field's value as text (strings as they are, other values as JSON); undefined when the row has no such field. */
function fieldText(piece: LinePiece, field: string, relative: string, state: SearchState): string | undefined {
  if (piece.cut) {
    if (piece.piece === 0) state.skipped.push(`${relative} line ${piece.line} (over ${formatBytes(searchFilesPieceChars)}: searched by field only when whole)`);
    return undefined;
  }
  let row: unknown;
  try {
    row = JSON.parse(piece.text);
  } catch {
    return undefined;
  }
  if (typeof row !== 'object' || row === null || !Object.hasOwn(row, field)) return undefined;
  const value = (row as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An earlier search_files answer spilled to results/: searching it again would only repeat its matches. */
const ownSpill = /^\d+-search_files(?:-\d+)?\.jsonl$/;

/** Every data file to search, sorted by path (sidecars and temporary files left out). */
async function candidateFiles(sandbox: ConversationSandbox, args: { dir?: string; glob?: string }): Promise<{ paths: string[]; more: number }> {
  await sandbox.ensure();
  const dir = args.dir === undefined || args.dir === '' || args.dir === '.' ? undefined : await sandbox.resolveExisting(args.dir);
  const roots = dir === undefined ? conversationFolders.map((folder) => sandbox.folderPath(folder)) : [dir.absolute];
  const matchesGlob = args.glob === undefined ? () => true : globMatcher(args.glob);
  const paths: string[] = [];
  let more = 0;
  const walk = async (folderPath: string): Promise<void> => {
    // Listed through the opened folder: a folder swapped for a symlink lists nothing from outside.
    const folder = await PinnedFolder.open(folderPath).catch(() => undefined);
    if (folder === undefined) return;
    let items: Dirent[];
    try {
      items = await readdir(folder.entry(''), { withFileTypes: true }).catch(() => []);
    } finally {
      await folder.close();
    }
    for (const item of items) {
      const absolute = path.join(folderPath, item.name);
      if (item.isDirectory()) await walk(absolute);
      else if (item.isFile() && !isTempName(item.name) && !item.name.endsWith(metadataSuffix) && !ownSpill.test(item.name)) {
        // Symlinks are not files here (isFile is false for them): never followed.
        const relative = sandbox.relativeOf(absolute);
        if (!matchesGlob(relative)) continue;
        if (paths.length >= maxFiles) more += 1;
        else paths.push(relative);
      }
    }
  };
  for (const root of roots) await walk(root);
  paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { paths, more };
}

/** A glob over conversation paths: `*` within one folder, `**` across folders, `?` one character. */
export function globMatcher(glob: string): (relative: string) => boolean {
  if (glob.startsWith('/') || glob.split('/').includes('..') || glob.includes('\0')) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `The glob ${JSON.stringify(glob)} must be relative to the conversation folder, without "..": e.g. "results/*.jsonl".`,
      {
        glob,
      },
    );
  }
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] ?? '';
    if (char === '*' && glob[index + 1] === '*') {
      const slash = glob[index + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      index += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // RE2 like every model-supplied pattern: a glob of many stars cannot backtrack.
  const pattern = compileUserRegExp(`^${source}$`);
  return (relative) => pattern.test(relative);
}
