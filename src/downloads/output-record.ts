import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { folderMode, PinnedFolder, readSidecar, writeFileAtomic, type ConversationSandbox } from '../sandbox/index.js';

/**
 * The folder, in each conversation folder, holding one record per output: a
 * dot name, so listings, the outputs watcher and retention (which only
 * touches results/, errors/, args/, scripts/) leave it alone. It sits on the
 * sandbox volume, so every replica of a fleet reads the same records.
 */
export const outputRecordsFolder = '.output-records';

/** What the host knew about an output when a tool call placed it in outputs/. */
export interface OutputRecord {
  /** Relative to the conversation folder, under outputs/. */
  path: string;
  /** The tool that produced it (for a delegating call, the target that ran). */
  tool: string;
  /** Where that tool comes from: absent or "local" for spillway's own, else the upstream server. */
  origin?: 'local' | { upstream: string };
  /** The delegating tool the model called, when it delegated. */
  calledAs?: string;
  /** SHA-256 of the content, hex. */
  sha256: string;
  bytes: number;
  /** The file's modification time when recorded: a file still of this size and time is taken to be unchanged (else its digest is computed again). */
  mtimeMs: number;
  recordedAt: string;
}

const maxRecordBytes = 64 * 1024;

/** The record file of an output path: named by the path's digest, so nested and long output names fit one file name. */
function recordFile(sandbox: ConversationSandbox, relative: string): string {
  return path.join(sandbox.dir, outputRecordsFolder, `${createHash('sha256').update(relative).digest('hex')}.json`);
}

/** Writes (atomically, replacing an older one) the record of an output. */
export async function writeOutputRecord(sandbox: ConversationSandbox, record: OutputRecord): Promise<void> {
  const conversation = await PinnedFolder.open(sandbox.dir);
  try {
    await mkdir(conversation.entry(outputRecordsFolder), folderMode).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await conversation.close();
  }
  await writeFileAtomic(recordFile(sandbox, record.path), `${JSON.stringify(record)}\n`, { overwrite: true });
}

/** The record of an output path, or undefined when there is none (or it is unreadable, or names another path). */
export async function readOutputRecord(sandbox: ConversationSandbox, relative: string): Promise<OutputRecord | undefined> {
  const text = await readSidecar(recordFile(sandbox, relative), maxRecordBytes);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<OutputRecord>;
    if (record.path !== relative || typeof record.tool !== 'string' || typeof record.sha256 !== 'string') return undefined;
    if (typeof record.bytes !== 'number' || typeof record.mtimeMs !== 'number') return undefined;
    return record as OutputRecord;
  } catch {
    return undefined;
  }
}
