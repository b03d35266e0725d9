import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ConversationSandbox, createPendingFile, findPublished, markBeforeLink, type PendingFile } from '../../sandbox/index.js';
import type { OutputTarget } from './worker-task.js';

/** An output file being written under a temporary name; `commit` names it (never replacing a file silently). */
export interface OutputFile {
  pending: PendingFile;
  /** Finishes the file; returns its final path and size, and the name asked for when it had to differ. */
  commit(): Promise<{ path: string; bytes: number; requestedName?: string }>;
  abort(): Promise<void>;
}

/**
 * Opens the output of a worker task. Sandbox targets are resolved by the same
 * sandbox code as every model-supplied path (outputs/ only); the bytes go to a
 * temporary file in the final folder and are renamed into place by `commit`.
 */
export async function openOutput(target: OutputTarget): Promise<OutputFile> {
  let finalPath: string;
  if (target.kind === 'sandbox') {
    const sandbox = new ConversationSandbox(target.root, target.conversationId, target.principal);
    const resolved = await sandbox.resolveForWrite(`outputs/${target.filename}`, { folders: ['outputs'] });
    finalPath = resolved.absolute;
  } else {
    finalPath = path.resolve(target.path);
  }
  // A sandbox folder is opened and checked; a path an operator chose (CLI export) is used as given.
  const pending = await createPendingFile(finalPath, { pinFolder: target.kind === 'sandbox' });
  return {
    pending,
    async commit() {
      const jobId = target.kind === 'sandbox' ? target.jobId : undefined;
      if (jobId !== undefined) {
        // A job run again after its worker died: an earlier run may have published the file already.
        const published = await findPublished(path.dirname(finalPath), jobId);
        if (published !== undefined) {
          await pending.abort();
          return described(published, finalPath);
        }
      }
      const options = target.kind === 'sandbox' ? { pickFreeName: target.onExisting === 'rename' } : { overwrite: target.overwrite };
      const marking = jobId === undefined ? {} : markBeforeLink(path.dirname(finalPath), jobId, pending.tempPath);
      const written = await pending.commit({ ...options, ...marking });
      return described(written, finalPath);
    },
    abort: () => pending.abort(),
  };
}

/** A published file as commit reports it: its path and size, and the name asked for when it had to differ. */
async function described(written: string, finalPath: string): Promise<{ path: string; bytes: number; requestedName?: string }> {
  const bytes = (await stat(written)).size;
  return written === finalPath ? { path: written, bytes } : { path: written, bytes, requestedName: path.basename(finalPath) };
}

/** Writes to a stream, waiting for 'drain' when its buffer is full (the stream's error rejects). */
export async function writeChunk(
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean },
  chunk: string | Uint8Array,
  /** Told once the stream no longer holds `chunk` (its bytes reached the file, or the write failed). */
  written?: () => void,
): Promise<void> {
  if (stream.write(chunk, written === undefined ? undefined : () => written())) return;
  await waitForDrain(stream);
}

/** Resolves on 'drain'; rejects when the stream errors or closes first (so a dead stream never hangs the task). */
export function waitForDrain(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(new Error('the output stream closed while waiting to write'));
    stream.once('drain', onDrain);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}

/**
 * Settles with `work`, or rejects as soon as the output stream fails (a full
 * disk): a library writing into the stream (exceljs) may otherwise wait
 * forever for a drain or a finish that a failed stream never sends.
 */
export function unlessStreamFails<T>(stream: NodeJS.WritableStream, work: Promise<T>): Promise<T> {
  const errored = (stream as { errored?: Error | null }).errored;
  if (errored) {
    work.catch(() => undefined);
    return Promise.reject(errored);
  }
  return new Promise<T>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    stream.once('error', onError);
    work.then(
      (value) => {
        stream.off('error', onError);
        resolve(value);
      },
      (error: unknown) => {
        stream.off('error', onError);
        reject(error as Error);
      },
    );
  });
}
