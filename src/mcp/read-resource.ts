import { SpillwayError } from '../errors.js';
import { readBounded, type ConversationSandbox } from '../sandbox/index.js';
import { formatBytes } from '../util/format.js';

/**
 * The bytes of an outputs/ file for resources/read, at most `maxBytes`
 * (resources.maxReadBytes). The size is the opened file's (fstat on the
 * handle, not a second lookup of the path), and no more than the cap is read
 * even if the file grows meanwhile: one read never holds more than the cap.
 */
export async function readResourceFile(sandbox: ConversationSandbox, relative: string, maxBytes: number): Promise<{ relative: string; data: Buffer }> {
  const file = await sandbox.openRead(relative, { folders: ['outputs'] });
  try {
    if (file.stats.size > maxBytes) throw resourceTooLarge(file.relative, file.stats.size, maxBytes);
    const data = await readBounded(file.handle, { maxBytes, name: file.relative }).catch((error: unknown) => {
      throw SpillwayError.is(error) && error.code === 'RESULT_TOO_LARGE' ? resourceTooLarge(file.relative, undefined, maxBytes) : error;
    });
    return { relative: file.relative, data };
  } finally {
    await file.handle.close();
  }
}

function resourceTooLarge(relative: string, bytes: number | undefined, maxBytes: number): SpillwayError {
  return new SpillwayError(
    'RESULT_TOO_LARGE',
    `The file ${relative} is ${bytes === undefined ? 'larger than that (it grew while being read)' : formatBytes(bytes)}; resources/read returns files of at most ${formatBytes(maxBytes)} (resources.maxReadBytes). ` +
      `Read it in parts instead: read_file with path "${relative}" and offset/limit, search_file to find lines, or query_files/inspect_file for a data file; or give the user a download of it.`,
    { path: relative, ...(bytes === undefined ? {} : { bytes }), maxBytes, limit: 'resources.maxReadBytes' },
  );
}
