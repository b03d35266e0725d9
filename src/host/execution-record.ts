import { createHash } from 'node:crypto';
import type { ScreeningCounts } from '../spill/spill-ref.js';
import { RecordFile, type RecordEpisode, type RecordFileHealth, type RecordFileSystem } from './record-file.js';

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
  /** What screening found in the result: counts per category and secrets per kind (never the values). */
  screening?: ScreeningCounts;
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
 * A full disk drops records (counted, see {@link RecordFile}) and never a call.
 */
export class ExecutionRecordStore {
  private readonly lines: RecordFile;

  constructor(
    readonly file: string,
    private readonly maxArgsBytes: number,
    options: {
      /** Told once when records start being dropped (full disk, ...) and once when they are written again; a failing record never fails the call. */
      onEpisode?: (episode: RecordEpisode) => void;
      fs?: RecordFileSystem;
    } = {},
  ) {
    this.lines = new RecordFile(file, options);
  }

  append(record: ExecutionRecord): void {
    const line: ExecutionRecord = { ...record, arguments: this.cap(record.arguments) };
    if (record.executed !== undefined) line.executed = { ...record.executed, arguments: this.cap(record.executed.arguments) };
    this.lines.appendLine(JSON.stringify(line));
  }

  /** Records written and dropped, for /healthz. */
  health(): RecordFileHealth {
    return this.lines.health();
  }

  /** Closes the file (every record is already written: writes are synchronous). */
  close(): Promise<void> {
    this.lines.close();
    return Promise.resolve();
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
