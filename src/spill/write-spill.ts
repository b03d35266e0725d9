import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  createPendingFile,
  expiredLogName,
  PinnedFolder,
  publishSmallFileSync,
  readSidecar,
  smallFileBytes,
  writeFileAtomic,
  type ConversationSandbox,
} from '../sandbox/index.js';
import { metadataSuffix } from '../sandbox/layout.js';
import { SpillwayError } from '../errors.js';
import { ChunkWriter } from './chunk-writer.js';
import type { ScreeningReport } from '../screening/index.js';
import type { SpillRef } from './spill-ref.js';
import type { TableProfile } from './profile.js';
import type { ColumnType } from './table.js';

export type SpillContent =
  | {
      format: 'jsonl';
      lines: readonly string[];
      columns: string[];
      columnTypes: Record<string, ColumnType>;
      envelope?: SpillRef['envelope'];
      profile?: TableProfile;
    }
  | { format: 'json'; text: string }
  | { format: 'text'; text: string }
  | { format: 'binary'; data: Buffer; mimeType: string };

export interface SpillTarget {
  sandbox: ConversationSandbox;
  folder: 'results' | 'errors';
  tool: string;
  callId: string;
  now: Date;
  retentionDays: number;
  /** Distinguishes several files of one call ("-2", "-3" for extra binary blocks). */
  suffix?: string;
  /** Numbers shared across processes; without it, this process numbers the conversation's spills itself. */
  numbers?: SpillNumbers;
  /** What screening found in the content (kept in the metadata: kinds and places, never values). */
  screening?: ScreeningReport;
}

/**
 * Hands out spill numbers that are unique across every process sharing the
 * sandbox (a fleet on one volume; Redis behind it). `atLeast` is the highest
 * number this process saw in the folder, so numbering continues after the
 * files already there.
 */
export interface SpillNumbers {
  next(conversationDir: string, atLeast: number): Promise<number>;
  /**
   * Throws (COORDINATION_UNAVAILABLE) when numbers cannot be had now. The host
   * asks before it runs a tool, so a call that could not be numbered is
   * refused before it does anything, and can simply be sent again.
   */
  assertAvailable?(): void;
}

const extensionsByMime: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
};

const lastSequence = new WeakMap<ConversationSandbox, number>();

/** Writes one spill file and its metadata atomically; returns its reference. */
export async function writeSpill(target: SpillTarget, content: SpillContent): Promise<SpillRef> {
  const { sandbox, folder } = target;
  await sandbox.ensure();
  const dir = sandbox.folderPath(folder);
  const extension = content.format === 'binary' ? (extensionsByMime[content.mimeType] ?? 'bin') : content.format === 'text' ? 'txt' : content.format;
  const stem = `${safeToolName(target.tool)}${target.suffix ?? ''}`;
  let sequence = target.numbers === undefined ? await nextSequence(sandbox) : await target.numbers.next(sandbox.dir, await highestOnDisk(sandbox));
  const nameFor = (n: number) => path.join(dir, `${String(n).padStart(4, '0')}-${stem}.${extension}`);

  const expires = new Date(target.now.getTime() + target.retentionDays * 86_400_000);
  const small = smallContent(content);
  if (small !== undefined) {
    // The sidecar's reference is the spill's: made once per candidate name, the one published is returned.
    let ref: SpillRef | undefined;
    const publish = () =>
      publishSmallFileSync(nameFor(sequence), small.bytes, {
        nextName: () => nameFor((sequence += 1)),
        sidecar: (finalPath) => {
          ref = refFor({ target, content, finalPath, bytes: small.bytes.byteLength, expires, replacedInvalidUnicode: small.replacedInvalidUnicode });
          return { path: `${finalPath}${metadataSuffix}`, data: sidecarText(ref) };
        },
      });
    try {
      publish();
    } catch (error) {
      // The retention sweep removes empty folders; make them again once rather than fail every later spill.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await sandbox.ensure({ recheck: true });
      publish();
    }
    lastSequence.set(sandbox, Math.max(lastSequence.get(sandbox) ?? 0, sequence));
    if (ref === undefined) throw new Error('spill published without its metadata');
    return ref;
  }

  const pending = await createPendingFile(nameFor(sequence)).catch(async (error: NodeJS.ErrnoException) => {
    // The retention sweep removes empty folders; make them again once rather than fail every later spill.
    if (error.code !== 'ENOENT') throw error;
    await sandbox.ensure({ recheck: true });
    return createPendingFile(nameFor(sequence));
  });
  const writer = new ChunkWriter(pending.stream);
  let ref: SpillRef | undefined;
  try {
    switch (content.format) {
      case 'jsonl':
        for (const line of content.lines) {
          const wait = writer.writeString(line, true);
          if (wait) await wait;
        }
        break;
      case 'json':
      case 'text':
        await writer.writeString(content.text);
        break;
      case 'binary':
        await writer.writeBytes(content.data);
        break;
    }
    await writer.end();
    // The sidecar is published first and the data last, at the same candidate name: the data's
    // link is the one step that makes the spill visible, so a crash leaves either a whole spill
    // or a sidecar without data. Readers never see that sidecar (list_files and the tools start
    // from data files; a sidecar is only read beside its data) and recovery removes it once it
    // is older than retention.tempGraceMs. The other order left data without metadata
    // (no rows, columns or expiry) that nothing could rebuild exactly.
    await pending.commit({
      nextName: (attempt) => {
        sequence += attempt > 1 ? 1 : 0;
        return nameFor(sequence);
      },
      beforeLink: async (finalPath) => {
        const candidate = refFor({ target, content, finalPath, bytes: writer.bytes, expires, replacedInvalidUnicode: writer.replacedInvalidUnicode });
        try {
          await writeFileAtomic(`${finalPath}${metadataSuffix}`, sidecarText(candidate));
        } catch (error) {
          if (SpillwayError.is(error) && error.code === 'PATH_EXISTS') return 'taken';
          throw error;
        }
        ref = candidate;
        return () => removeIn(`${finalPath}${metadataSuffix}`);
      },
    });
  } catch (error) {
    await pending.abort();
    throw error;
  }
  lastSequence.set(sandbox, Math.max(lastSequence.get(sandbox) ?? 0, sequence));
  if (ref === undefined) throw new Error('spill published without its metadata');
  return ref;
}

function sidecarText(ref: SpillRef): string {
  return `${JSON.stringify(ref, null, 2)}\n`;
}

/**
 * The bytes of a spill small enough to write in one synchronous call, encoded
 * as ChunkWriter would (lone surrogates as U+FFFD, a newline after each JSONL
 * line); undefined for larger content, which is streamed.
 */
export function smallContent(content: SpillContent): { bytes: Uint8Array; replacedInvalidUnicode: boolean } | undefined {
  switch (content.format) {
    case 'binary':
      return content.data.byteLength <= smallFileBytes ? { bytes: content.data, replacedInvalidUnicode: false } : undefined;
    case 'json':
    case 'text':
      // UTF-8 takes at most 3 bytes a UTF-16 unit: a cheap bound before encoding.
      if (content.text.length * 3 > smallFileBytes) return undefined;
      return { bytes: Buffer.from(content.text, 'utf8'), replacedInvalidUnicode: !content.text.isWellFormed() };
    case 'jsonl': {
      let units = 0;
      for (const line of content.lines) {
        units += line.length + 1;
        if (units * 3 > smallFileBytes) return undefined;
      }
      const text = content.lines.length === 0 ? '' : `${content.lines.join('\n')}\n`;
      return { bytes: Buffer.from(text, 'utf8'), replacedInvalidUnicode: !text.isWellFormed() };
    }
  }
}

interface RefParts {
  target: SpillTarget;
  content: SpillContent;
  finalPath: string;
  bytes: number;
  expires: Date;
  replacedInvalidUnicode: boolean;
}

function refFor(parts: RefParts): SpillRef {
  const { target, content } = parts;
  const ref: SpillRef = {
    path: target.sandbox.relativeOf(parts.finalPath),
    format: content.format,
    bytes: parts.bytes,
    tool: target.tool,
    callId: target.callId,
    createdAt: target.now.toISOString(),
    expiresAt: parts.expires.toISOString(),
  };
  if (content.format === 'jsonl') {
    ref.rows = content.lines.length;
    ref.columns = content.columns;
    ref.columnTypes = content.columnTypes;
    if (content.envelope !== undefined) ref.envelope = content.envelope;
    if (content.profile !== undefined) ref.profile = content.profile;
  }
  if (content.format === 'binary') ref.mimeType = content.mimeType;
  if (parts.replacedInvalidUnicode) ref.replacedInvalidUnicode = true;
  if (target.screening !== undefined) ref.screening = target.screening;
  return ref;
}

async function removeIn(file: string): Promise<void> {
  const folder = await PinnedFolder.open(path.dirname(file)).catch(() => undefined);
  if (folder === undefined) return;
  await unlink(folder.entry(path.basename(file))).catch(() => undefined);
  await folder.close();
}

/** Next free sequence number for a conversation: one past the highest seen in results/ and errors/. */
async function nextSequence(sandbox: ConversationSandbox): Promise<number> {
  const last = lastSequence.get(sandbox) ?? (await scanHighest(sandbox));
  lastSequence.set(sandbox, last + 1);
  return last + 1;
}

const scannedHighest = new WeakMap<ConversationSandbox, number>();

/** The highest number in the folder when this process first looked (a floor for shared numbering; the shared counter holds the rest). */
async function highestOnDisk(sandbox: ConversationSandbox): Promise<number> {
  let highest = scannedHighest.get(sandbox);
  if (highest === undefined) {
    highest = await scanHighest(sandbox);
    scannedHighest.set(sandbox, highest);
  }
  // What this process wrote since counts too (the shared counter may have been lost, e.g. Redis restarted empty).
  return Math.max(highest, lastSequence.get(sandbox) ?? 0);
}

async function scanHighest(sandbox: ConversationSandbox): Promise<number> {
  let last = 0;
  for (const folder of ['results', 'errors'] as const) {
    // Listed through the opened folder: a results/ swapped for a symlink lists nothing from elsewhere.
    const opened = await PinnedFolder.open(sandbox.folderPath(folder)).catch(() => undefined);
    const names = opened === undefined ? [] : await readdir(opened.entry('')).catch(() => [] as string[]);
    await opened?.close();
    for (const name of names) {
      const match = /^(\d+)-/.exec(name);
      if (match) last = Math.max(last, Number(match[1]));
    }
  }
  // Swept files keep their numbers: a path in the model's history must never name a newer file.
  const expired = (await readSidecar(path.join(sandbox.dir, expiredLogName), 4 * 1024 * 1024)) ?? '';
  for (const match of expired.matchAll(/"(?:results|errors)\/(\d+)-/g)) last = Math.max(last, Number(match[1]));
  return last;
}

export function safeToolName(tool: string): string {
  const cleaned = tool.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[._-]+/, '');
  return (cleaned || 'tool').slice(0, 64);
}
