import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, constants, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import path from 'node:path';

/** One line of the execution record: the call as written and as executed. */
export interface ExecutionRecord {
  callId: string;
  conversationId: string;
  /** Who the conversation belongs to. */
  principal?: string;
  caller?: string;
  tool: string;
  /** The arguments as the model wrote them (what the history keeps). */
  arguments: unknown;
  /** For delegating calls: the tool and the expanded arguments that really ran (sha256: of the bytes sent, when approval was asked). */
  executed?: { tool: string; arguments: unknown; argsPath?: string; sha256?: string };
  /**
   * For calls the policy asked the user about: the SHA-256 of the bytes approved and of the
   * arguments that ran (equal, or the call was refused), their size, and where the full arguments were shown.
   */
  approval?: { sha256: string; executedSha256: string; bytes: number; shownInFull: boolean; argumentsFile?: string };
  startedAt: string;
  durationMs: number;
  outcome: 'ok' | 'error';
  errorCode?: string;
  spillPath?: string;
  attachments?: string[];
}

/** Stored in place of arguments larger than the cap. */
export interface CappedValue {
  $capped: true;
  bytes: number;
  sha256: string;
  preview: string;
}

/**
 * The execution record is an append-only JSONL file (data/records.jsonl): one
 * line per call, written in call-completion order. JSONL was chosen over SQLite
 * so the core has no native dependency and the file can be shipped to a log
 * pipeline as it is. Large arguments are stored once, capped, with a hash.
 */
export class ExecutionRecordStore {
  private stream: WriteStream | undefined;

  constructor(
    readonly file: string,
    private readonly maxArgsBytes: number,
    /** Told about a record that could not be written; a failing record never fails the call. */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  append(record: ExecutionRecord): void {
    try {
      const line: ExecutionRecord = { ...record, arguments: this.cap(record.arguments) };
      if (record.executed !== undefined) line.executed = { ...record.executed, arguments: this.cap(record.executed.arguments) };
      this.open().write(`${JSON.stringify(line)}\n`);
    } catch (error) {
      this.onError(error);
    }
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    if (stream === undefined) return Promise.resolve();
    return new Promise((resolve) => stream.end(resolve));
  }

  private open(): WriteStream {
    if (this.stream === undefined) {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      // It holds full arguments: owner-only, whatever the umask, also for a file an older version created.
      const fd = openSync(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
      try {
        fchmodSync(fd, 0o600);
      } catch (error) {
        closeSync(fd);
        throw error;
      }
      const stream = createWriteStream(this.file, { fd, flags: 'a' });
      stream.on('error', (error) => {
        // Drop the broken stream so the next record tries the file again.
        if (this.stream === stream) this.stream = undefined;
        this.onError(error);
      });
      this.stream = stream;
    }
    return this.stream;
  }

  private cap(value: unknown): unknown {
    const text = JSON.stringify(value ?? null);
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.maxArgsBytes) return value ?? null;
    const capped: CappedValue = {
      $capped: true,
      bytes,
      sha256: createHash('sha256').update(text).digest('hex'),
      preview: text.slice(0, 512),
    };
    return capped;
  }
}
