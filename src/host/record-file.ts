import { closeSync, fchmodSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The file calls the record makes; injectable so tests can fill the disk (ENOSPC) at any byte. */
export interface RecordFileSystem {
  /** Like fs.writeSync: returns the bytes written (fewer than asked when the disk fills mid-line), or throws. */
  write(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  truncate(fd: number, length: number): void;
}

export const nodeRecordFileSystem: RecordFileSystem = {
  write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
  truncate: (fd, length) => ftruncateSync(fd, length),
};

/** What /healthz shows about the record file (no path: it is a host path). */
export interface RecordFileHealth {
  /** Lines written since start. */
  written: number;
  /** Lines that could not be written since start (disk full, read-only, ...). */
  dropped: number;
  /** True while lines are being dropped (from the first failure until a line is written again). */
  failing: boolean;
  /** The errno of the last failure (ENOSPC, EROFS, ...), while failing. */
  lastError?: string;
  /** Bytes of a torn last line cut off when the file was opened (a crash or a full disk mid-line). */
  repairedBytes: number;
}

/** A failure episode: it starts with the first dropped line and ends when a line is written again. */
export interface RecordEpisode {
  kind: 'start' | 'end';
  error?: unknown;
  /** Lines dropped in the episode (at its end). */
  dropped?: number;
}

/**
 * An append-only file of whole lines that survives a full disk. On open, a
 * torn last line (no final newline) is cut back to the last newline, so the
 * next line never glues onto it. A line that fails half-written is cut back
 * the same way at once. Lines that cannot be written are counted, and each
 * failure episode is reported once at its start and once at its end.
 * Writes are synchronous: one short line per call, and a line is either
 * whole in the file or counted as dropped.
 */
export class RecordFile {
  private fd: number | undefined;
  private size = 0;
  private readonly stats: RecordFileHealth = { written: 0, dropped: 0, failing: false, repairedBytes: 0 };
  private episodeDropped = 0;

  constructor(
    readonly file: string,
    private readonly options: { fs?: RecordFileSystem; onEpisode?: (episode: RecordEpisode) => void } = {},
  ) {}

  appendLine(line: string): void {
    const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8');
    try {
      const fd = this.open();
      this.writeWhole(fd, bytes);
    } catch (error) {
      this.drop(error);
      return;
    }
    this.stats.written += 1;
    if (this.stats.failing) {
      this.stats.failing = false;
      delete this.stats.lastError;
      this.options.onEpisode?.({ kind: 'end', dropped: this.episodeDropped });
      this.episodeDropped = 0;
    }
  }

  health(): RecordFileHealth {
    return { ...this.stats };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private get fs(): RecordFileSystem {
    return this.options.fs ?? nodeRecordFileSystem;
  }

  private writeWhole(fd: number, bytes: Buffer): void {
    const before = this.size;
    let done = 0;
    try {
      while (done < bytes.length) {
        const count = this.fs.write(fd, bytes, done, bytes.length - done);
        if (count <= 0) throw Object.assign(new Error('the record file accepted no bytes'), { code: 'EIO' });
        done += count;
      }
      this.size = before + done;
    } catch (error) {
      if (done > 0) this.cutBack(fd, before);
      throw error;
    }
  }

  /** Removes the part of a line written before a failure; if even that fails, the file is reopened (and repaired) next time. */
  private cutBack(fd: number, length: number): void {
    try {
      // Only our own bytes: when another writer appended meanwhile, the size is not ours to cut.
      this.fs.truncate(fd, length);
      this.size = length;
    } catch {
      this.close();
    }
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const fd = openSync(this.file, 'a+', 0o600);
    try {
      // It holds full arguments: owner-only whatever the umask, also when an older version created it wider.
      fchmodSync(fd, 0o600);
      this.size = fstatSync(fd).size;
      const cut = tornTail(fd, this.size);
      if (cut > 0) {
        this.fs.truncate(fd, this.size - cut);
        this.size -= cut;
        this.stats.repairedBytes += cut;
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    return fd;
  }

  private drop(error: unknown): void {
    this.stats.dropped += 1;
    this.episodeDropped += 1;
    this.stats.lastError = errnoOf(error);
    if (!this.stats.failing) {
      this.stats.failing = true;
      this.options.onEpisode?.({ kind: 'start', error });
    }
  }
}

/** Bytes after the last newline of the file (0 when it ends with one or is empty). */
function tornTail(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const read = readSync(fd, chunk, 0, end - start, start);
    const index = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (index >= 0) return size - (start + index + 1);
    end = start;
  }
  return size;
}

function errnoOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}
