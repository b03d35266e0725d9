import path from 'node:path';
import { SpillwayError, toSpillwayError } from '../errors.js';
import type { ConversationSandbox, OpenedFile } from '../sandbox/index.js';
import type { ConversationFolder } from '../sandbox/layout.js';
import { parseJsonSafely } from '../util/safe-json.js';
import type { BridgeReply, BridgeRequest } from './protocol.js';
import { findRowRange, readRange, RowCheckpoints, tableFormat } from './row-slice.js';
import { limitError, type ScriptLimits } from './script-limits.js';

/** Where a script may write: arguments files, scripts, and outputs/ (attachments). Never results/ or errors/. */
export const scriptWriteFolders: readonly ConversationFolder[] = ['args', 'scripts', 'outputs'];

/** A file a run wrote. */
export interface WrittenFile {
  relative: string;
  absolute: string;
  bytes: number;
}

export interface ScriptBridgeOptions {
  sandbox: ConversationSandbox;
  limits: ScriptLimits;
  /** Serves the guest's list(): the caller answers with the list_files tool itself, so both list alike. */
  listFiles: (dir: string | undefined) => Promise<unknown[]>;
}

/**
 * The host side of one run's file access. Every path goes through the
 * conversation sandbox; byte budgets are counted here, on the main thread, so
 * a misbehaving worker cannot spend more than its limits.
 */
export class ScriptBridge {
  bytesRead = 0;
  bytesWritten = 0;
  private readonly writtenFiles = new Map<string, WrittenFile>();
  /** Output paths as the script asked for them → where they were written (a free name on first write). */
  private readonly outputNames = new Map<string, string>();
  private readonly checkpoints = new RowCheckpoints();
  private closed = false;

  constructor(private readonly options: ScriptBridgeOptions) {}

  /** Files written by this run, in the order first written. */
  get written(): WrittenFile[] {
    return [...this.writtenFiles.values()];
  }

  /** After the run ended (or was stopped) no request is served any more. */
  close(): void {
    this.closed = true;
  }

  async handle(request: BridgeRequest): Promise<{ reply: BridgeReply; transfer: ArrayBuffer[] }> {
    try {
      if (this.closed) throw new SpillwayError('SCRIPT_ERROR', 'The run has ended; no more file access.');
      switch (request.op) {
        case 'read':
          return await this.read(request.id, request.path);
        case 'rows':
          return await this.rows(request.id, request.path, request.offset, request.limit);
        case 'list':
          return { reply: { id: request.id, ok: true, op: 'list', json: await this.list(request.dir) }, transfer: [] };
        case 'write':
          return { reply: { id: request.id, ok: true, op: 'write', ...(await this.write(request.path, request.data)) }, transfer: [] };
        default:
          throw new SpillwayError('INTERNAL', 'Unknown script bridge request.');
      }
    } catch (error) {
      const failure = toSpillwayError(error);
      return { reply: { id: request.id, ok: false, error: failure.toJSON(), fatal: failure.code === 'SCRIPT_LIMIT' }, transfer: [] };
    }
  }

  private async read(id: number, input: string): Promise<{ reply: BridgeReply; transfer: ArrayBuffer[] }> {
    const file = await this.options.sandbox.openRead(input);
    try {
      this.chargeRead(file, file.stats.size);
      const data = await readRange(file.handle, 0, file.stats.size);
      return { reply: { id, ok: true, op: 'read', data, relative: file.relative }, transfer: [data.buffer as ArrayBuffer] };
    } finally {
      await file.handle.close();
    }
  }

  private async rows(id: number, input: string, offset: number, limit: number | undefined): Promise<{ reply: BridgeReply; transfer: ArrayBuffer[] }> {
    const file = await this.options.sandbox.openRead(input);
    try {
      const format = await tableFormat(file, this.options.sandbox);
      let data: Uint8Array;
      let firstLine = 1;
      if (format === 'json') {
        this.chargeRead(file, file.stats.size);
        data = await readRange(file.handle, 0, file.stats.size);
      } else {
        const range = await findRowRange(file, this.checkpoints.forFile(file), offset, limit);
        this.chargeRead(file, range.end - range.start);
        data = await readRange(file.handle, range.start, range.end);
        firstLine = range.firstLine;
      }
      return {
        reply: { id, ok: true, op: 'rows', relative: file.relative, slice: { format, data, firstRow: offset, firstLine } },
        transfer: [data.buffer as ArrayBuffer],
      };
    } finally {
      await file.handle.close();
    }
  }

  private async list(dir: string | undefined): Promise<string> {
    return JSON.stringify(await this.options.listFiles(dir));
  }

  private async write(input: string, data: Uint8Array): Promise<{ relative: string; bytes: number }> {
    const { sandbox, limits } = this.options;
    const segments = sandbox.checkPath(input, { folders: scriptWriteFolders });
    const folder = segments[0] as ConversationFolder;
    const relative = segments.join('/');
    if (this.bytesWritten + data.byteLength > limits.maxWriteBytes) {
      throw limitError(
        limits,
        'maxWriteBytes',
        `Writing ${relative} (${data.byteLength.toLocaleString('en-US')} bytes) would bring this run's writes to ${(this.bytesWritten + data.byteLength).toLocaleString('en-US')} bytes`,
        'Write less: select the rows and fields the target needs, or build large tables with export_table from the spill file.',
      );
    }
    if (folder === 'args') this.checkArgsFile(relative, data);
    let target = relative;
    let publish: { overwrite?: boolean; pickFreeName?: boolean };
    if (folder === 'outputs') {
      // A download the user already has is never replaced; a file this run wrote may be.
      const earlier = this.outputNames.get(relative);
      target = earlier ?? relative;
      publish = earlier === undefined ? { pickFreeName: true } : { overwrite: true };
    } else {
      publish = { overwrite: true };
    }
    if (this.closed) throw new SpillwayError('SCRIPT_ERROR', 'The run has ended; the file was not written.');
    const written = await sandbox.writeFile(target, data, { folders: scriptWriteFolders, ...publish });
    if (folder === 'outputs') this.outputNames.set(relative, written.relative);
    this.bytesWritten += data.byteLength;
    const previous = this.writtenFiles.get(written.relative);
    if (previous !== undefined) this.writtenFiles.delete(written.relative);
    this.writtenFiles.set(written.relative, { relative: written.relative, absolute: written.absolute, bytes: data.byteLength });
    return { relative: written.relative, bytes: data.byteLength };
  }

  /** An arguments file must be what call_with_args_file will accept: at most args.maxBytes, and safe JSON. */
  private checkArgsFile(relative: string, data: Uint8Array): void {
    const { limits } = this.options;
    if (data.byteLength > limits.argsMaxBytes) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `${relative} would be ${data.byteLength.toLocaleString('en-US')} bytes; arguments files hold at most ${limits.argsMaxBytes.toLocaleString('en-US')} bytes (args.maxBytes). Put only what the target tool needs in it.`,
        { path: relative, bytes: data.byteLength, maxBytes: limits.argsMaxBytes },
      );
    }
    if (path.extname(relative).toLowerCase() !== '.json') return;
    try {
      parseJsonSafely(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
    } catch (error) {
      throw new SpillwayError(
        'INVALID_JSON',
        `${relative} would not be usable JSON (${(error as Error).message}); "__proto__" and "constructor.prototype" keys are refused in arguments files.`,
        {
          path: relative,
        },
      );
    }
  }

  private chargeRead(file: OpenedFile, bytes: number): void {
    const { limits } = this.options;
    if (this.bytesRead + bytes > limits.maxReadBytes) {
      throw limitError(
        limits,
        'maxReadBytes',
        `Reading ${file.relative} (${bytes.toLocaleString('en-US')} bytes) would bring this run's reads to ${(this.bytesRead + bytes).toLocaleString('en-US')} bytes`,
        'Read less: page through rows with readRows(path, { offset, limit }), or filter with query_sql first.',
      );
    }
    if (bytes > limits.memoryBytes) {
      throw limitError(
        limits,
        'memoryBytes',
        `${file.relative} is ${bytes.toLocaleString('en-US')} bytes, more than the script's whole memory`,
        'Read it in pages with readRows(path, { offset, limit }).',
      );
    }
    this.bytesRead += bytes;
  }
}
