import path from 'node:path';
import { SpillwayError } from '../../errors.js';

const knownExtensions = new Set(['csv', 'tsv', 'xlsx', 'xls', 'docx', 'doc', 'pptx', 'ppt', 'json', 'jsonl', 'md', 'txt', 'pdf', 'html', 'zip']);
const maxNameLength = 200;
// Control characters and characters that are unsafe in file names on common systems.
const forbidden = /[\u0000-\u001f\u007f<>:"|?*]/;

/**
 * The file name of an output in outputs/. A requested name must be a plain
 * name (no folders: the file always goes to outputs/); the format's extension
 * is added when missing, and a different known extension is refused rather
 * than producing "report.xlsx" that holds CSV. Without a request, the source's
 * name is used with the new extension.
 */
export function outputFilename(options: { requested: string | undefined; sourcePath: string; extension: string }): string {
  const { requested, sourcePath, extension } = options;
  if (requested === undefined) {
    const stem = path.posix.basename(sourcePath).replace(/\.[^.]*$/, '') || 'export';
    return `${stem.replace(/^\.+/, '')}.${extension}`;
  }
  if (requested.trim() === '') {
    throw new SpillwayError('INVALID_ARGUMENTS', 'filename must be a non-empty file name such as "sales.xlsx".', { field: 'filename' });
  }
  if (requested.includes('/') || requested.includes('\\')) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `filename ${JSON.stringify(requested)} contains a folder; give a plain name such as "${path.posix.basename(requested.replaceAll('\\', '/')) || `export.${extension}`}" — outputs always go to outputs/.`,
      { field: 'filename', filename: requested },
    );
  }
  if (requested.startsWith('.') || forbidden.test(requested) || requested.length > maxNameLength || requested !== requested.trim()) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `filename ${JSON.stringify(requested.slice(0, 80))} is not usable: use at most ${maxNameLength} characters, not starting with "." and without control characters or < > : " | ? *.`,
      { field: 'filename', filename: requested.slice(0, 300) },
    );
  }
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
