import { SpillwayError } from '../errors.js';

export const maxPathLength = 1024;

/**
 * The lexical rules for a model-supplied sandbox path. Returns the path's
 * segments (empty ones and "." dropped) or throws a coded error naming the rule.
 * The string is never trimmed or decoded: what is checked is what is used.
 */
export function checkRelativePath(input: unknown): string[] {
  if (typeof input !== 'string' || input.length === 0) {
    throw new SpillwayError('PATH_EMPTY', 'The path is empty. Give a path relative to the conversation folder, e.g. "results/0001-query_sql.jsonl".');
  }
  const shown = JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input);
  if (input.includes('\0')) {
    throw new SpillwayError('PATH_NUL', `The path ${shown} contains a NUL byte, which is never allowed.`, { path: input });
  }
  if (!input.isWellFormed()) {
    // Node would re-encode a lone surrogate as U+FFFD, so the name checked would not be the name used.
    throw new SpillwayError('PATH_INVALID_UNICODE', `The path ${shown} holds a lone UTF-16 surrogate; give the file name as well-formed text.`, { path: input });
  }
  if (input.length > maxPathLength) {
    throw new SpillwayError('PATH_TOO_LONG', `The path is ${input.length} characters; at most ${maxPathLength} are allowed.`, {
      length: input.length,
    });
  }
  if (input.includes('\\')) {
    throw new SpillwayError('PATH_BACKSLASH', `The path ${shown} contains a backslash. Use "/" between folders, relative to the conversation folder.`, {
      path: input,
    });
  }
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input) || input.startsWith('~')) {
    throw new SpillwayError('PATH_ABSOLUTE', `The path ${shown} is absolute. Paths are relative to the conversation folder, e.g. "results/0001-query_sql.jsonl".`, {
      path: input,
    });
  }
  const segments = input.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw new SpillwayError('PATH_TRAVERSAL', `The path ${shown} contains "..". Paths must stay inside the conversation folder.`, { path: input });
  }
  return segments;
}
