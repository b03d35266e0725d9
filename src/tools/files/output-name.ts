import path from 'node:path';
import { SpillwayError } from '../../errors.js';

const knownExtensions = new Set(['csv', 'tsv', 'xlsx', 'xls', 'docx', 'doc', 'pptx', 'ppt', 'json', 'jsonl', 'md', 'txt', 'pdf', 'html', 'zip']);
const maxNameLength = 200;
// Control characters and characters that are unsafe in file names on common systems.
const forbidden = /[\u0000-\u001f\u007f<>:"|?*]/;

/** The stem of an output named after its source: "results/0007-query_sql.jsonl" → "0007-query_sql" (`fallback` when nothing is left). */
export function sourceStem(sourcePath: string, fallback: string): string {
  return (path.posix.basename(sourcePath).replace(/\.[^.]*$/, '') || fallback).replace(/^\.+/, '') || fallback;
}

/**
 * A requested output name, refused unless it is a plain file name: not empty,
 * no folders (outputs always go to outputs/), not starting with ".", no
 * control or unsafe characters, at most 200 characters. `example` is a name
 * the message suggests.
 */
export function plainRequestedName(requested: string, example: string): string {
  if (requested.trim() === '') {
    throw new SpillwayError('INVALID_ARGUMENTS', `filename must be a non-empty file name such as "${example}".`, { field: 'filename' });
  }
  if (requested.includes('/') || requested.includes('\\')) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `filename ${JSON.stringify(requested.slice(0, 80))} contains a folder; give a plain name such as "${path.posix.basename(requested.replaceAll('\\', '/')).slice(0, 80) || example}" — outputs always go to outputs/.`,
      { field: 'filename', filename: requested.slice(0, 300) },
    );
  }
  if (requested.startsWith('.') || forbidden.test(requested) || requested.length > maxNameLength || requested !== requested.trim()) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `filename ${JSON.stringify(requested.slice(0, 80))} is not usable: use at most ${maxNameLength} characters, not starting with "." and without control characters or < > : " | ? *.`,
      { field: 'filename', filename: requested.slice(0, 300) },
    );
  }
  return requested;
}

/**
 * The file name of an output in outputs/. A requested name must be a plain
 * name ({@link plainRequestedName}); the format's extension is added when
 * missing, and a different known extension is refused rather than producing
 * "report.xlsx" that holds CSV. Without a request, the source's name is used
 * with the new extension.
 */
export function outputFilename(options: { requested: string | undefined; sourcePath: string; extension: string }): string {
  const { requested, sourcePath, extension } = options;
  if (requested === undefined) return `${sourceStem(sourcePath, 'export')}.${extension}`;
  plainRequestedName(requested, `export.${extension}`);
  const current = path.posix.extname(requested).slice(1).toLowerCase();
  if (current === extension) return requested;
  if (knownExtensions.has(current)) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `filename ${JSON.stringify(requested)} ends in .${current} but the file is ${extension.toUpperCase()}; use a name ending in .${extension} (or none, and .${extension} is added).`,
      { field: 'filename', filename: requested, extension },
    );
  }
  return `${requested}.${extension}`;
}
