import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import type { Attachment } from '../host/tool.js';
import { isTempName, PinnedFolder, type ConversationSandbox } from '../sandbox/index.js';

/** URIs of attachments: resolved in the caller's own conversation, so they never name a conversation. */
export const attachmentUriPrefix = 'spillway://sandbox/';

const mimeTypes: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  jsonl: 'application/jsonl',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  html: 'text/html',
  js: 'text/javascript',
  zip: 'application/zip',
  parquet: 'application/vnd.apache.parquet',
};

export function mimeTypeFor(name: string): string {
  return mimeTypes[path.extname(name).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

export function isTextMimeType(mimeType: string): boolean {
  return mimeType.startsWith('text/') || mimeType === 'application/json' || mimeType === 'application/jsonl';
}

export function attachmentUri(relativePath: string): string {
  return attachmentUriPrefix + relativePath.split('/').map(encodeURIComponent).join('/');
}

/** The sandbox-relative path an attachment URI names (checked again by the sandbox when opened). */
export function pathFromAttachmentUri(uri: string): string {
  if (!uri.startsWith(attachmentUriPrefix)) {
    throw new SpillwayError('PATH_NOT_FOUND', `Unknown resource ${JSON.stringify(uri)}; spillway resources start with ${attachmentUriPrefix}.`, { uri });
  }
  try {
    return uri.slice(attachmentUriPrefix.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new SpillwayError('PATH_NOT_FOUND', `The resource URI ${JSON.stringify(uri)} is malformed.`, { uri });
  }
}

/** The download card for a file the host placed in outputs/. */
export function describeAttachment(sandbox: ConversationSandbox, absolutePath: string, bytes: number, rows?: number): Attachment {
  const relative = sandbox.relativeOf(absolutePath);
  const filename = path.basename(absolutePath);
  const attachment: Attachment = { path: relative, filename, bytes, mimeType: mimeTypeFor(filename), uri: attachmentUri(relative) };
  if (rows !== undefined) attachment.rows = rows;
  return attachment;
}

/**
 * Every file under a conversation's outputs/ (attachments), sorted by path. Each folder is
 * listed through its opened descriptor (PinnedFolder), so an outputs/ (or a folder in it)
 * replaced by a symlink shows nothing of where it leads, as list_files refuses it.
 */
export async function listAttachments(sandbox: ConversationSandbox): Promise<Attachment[]> {
  const found: Attachment[] = [];
  const walk = async (dir: string): Promise<void> => {
    const folder = await PinnedFolder.open(dir).catch(() => undefined);
    if (folder === undefined) return;
    try {
      const items: Dirent[] = await readdir(folder.entry(''), { withFileTypes: true }).catch(() => []);
      for (const item of items) {
        if (item.isDirectory()) await walk(folder.realPath(item.name));
        else if (item.isFile() && !isTempName(item.name)) {
          const info = await lstat(folder.entry(item.name)).catch(() => undefined);
          if (info !== undefined) found.push(describeAttachment(sandbox, folder.realPath(item.name), info.size));
        }
      }
    } finally {
      folder.closeSync();
    }
  };
  await walk(sandbox.folderPath('outputs'));
  return found.sort((a, b) => a.path.localeCompare(b.path));
}
