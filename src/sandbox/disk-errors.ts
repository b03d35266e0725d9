import path from 'node:path';
import { SpillwayError } from '../errors.js';

/** The codes a file-system failure becomes. */
export type DiskFaultCode = 'DISK_FULL' | 'SANDBOX_READ_ONLY' | 'DISK_IO';

export type DiskOperation = 'read' | 'write';

export interface DiskErrorContext {
  /** The conversation folder: a path inside it is shown relative to it; a path outside is never shown. */
  base?: string;
  /** The path as the model should see it (relative to the conversation), when the caller knows it better than the errno does. */
  path?: string;
  /** Reading or writing (EACCES and EPERM mean a read-only sandbox only when writing). Default: write. */
  operation?: DiskOperation;
}

/** Errnos about the path asked for, not the disk: the path checks give them their own codes. */
const pathErrnos = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ELOOP', 'ENAMETOOLONG', 'EEXIST', 'ENOTEMPTY', 'EXDEV', 'ENXIO', 'ENODEV', 'EINVAL', 'EBADF']);

const diskFaultCodes: ReadonlySet<string> = new Set<DiskFaultCode>(['DISK_FULL', 'SANDBOX_READ_ONLY', 'DISK_IO']);

/** The code of an errno, or undefined for errnos that are about the path rather than the disk. */
export function diskFaultCode(errno: string, operation: DiskOperation = 'write'): DiskFaultCode | undefined {
  switch (errno) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'DISK_FULL';
    case 'EROFS':
      return 'SANDBOX_READ_ONLY';
    case 'EACCES':
    case 'EPERM':
      return operation === 'write' ? 'SANDBOX_READ_ONLY' : 'DISK_IO';
    default:
      return pathErrnos.has(errno) ? undefined : 'DISK_IO';
  }
}

export function isDiskFault(error: unknown): error is SpillwayError {
  return SpillwayError.is(error) && diskFaultCodes.has(error.code);
}

/**
 * A file-system failure (a Node system error: `code` E... from a call on a
 * file or folder, `syscall` open, write, rename, ...) as a coded SpillwayError whose message and details hold no host
 * path: DISK_FULL for ENOSPC/EDQUOT, SANDBOX_READ_ONLY for EROFS (and
 * EACCES/EPERM when writing), DISK_IO for EIO and any other unexpected errno.
 * A disk fault already coded (by a lower layer that knew less) is coded again
 * from its cause when this context names the path. Undefined for anything else, including
 * errnos about the path (ENOENT, ELOOP, ...).
 */
export function toDiskError(error: unknown, context: DiskErrorContext = {}): SpillwayError | undefined {
  if (isDiskFault(error)) {
    // Named again only by a caller that knows the path better; a folder alone would lose the name it has.
    const again = context.path !== undefined && isSystemError(error.cause) ? toDiskError(error.cause, context) : undefined;
    return again ?? error;
  }
  if (!isSystemError(error)) return undefined;
  const operation = context.operation ?? 'write';
  const code = diskFaultCode(error.code, operation);
  if (code === undefined) return undefined;
  const shown = context.path ?? shownPath(error.path, context.base);
  const where = shown === undefined ? '' : ` (${shown})`;
  const details: Record<string, unknown> = { errno: error.code, operation };
  if (error.syscall !== undefined) details.syscall = error.syscall;
  if (shown !== undefined) details.path = shown;
  const outcome = operation === 'write' ? '; nothing was written.' : '.';
  return new SpillwayError(code, `${sentence(code, error.code, operation)}${where}${outcome} ${advice[code]}`, details, { cause: error });
}

/** `toDiskError`, or the error unchanged when it is not a disk fault: for `.catch((error) => { throw asDiskError(error, ...) })`. */
export function asDiskError(error: unknown, context: DiskErrorContext = {}): unknown {
  return toDiskError(error, context) ?? error;
}

/** strerror texts, as a library in another process (DuckDB) reports a failed write. */
const strerrorTexts: [RegExp, string][] = [
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
  [/Read-only file system/i, 'EROFS'],
  [/Input\/output error/i, 'EIO'],
];

/**
 * A failure reported only as text by another process (DuckDB's "IO Error: Could
 * not write file ...: No space left on device") as the disk fault it names, or
 * undefined when its message names none.
 */
export function toDiskErrorFromText(error: unknown, context: DiskErrorContext = {}): SpillwayError | undefined {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const errno = strerrorTexts.find(([pattern]) => pattern.test(message))?.[1];
  if (errno === undefined) return undefined;
  const fault = toDiskError(Object.assign(new Error(`${errno}: reported by a child process`), { code: errno, syscall: 'write' }), context);
  return fault === undefined ? undefined : new SpillwayError(fault.code, fault.message, fault.details, { cause: error });
}

/**
 * A coded error with every mention of a host folder taken out of its message
 * and details: a path under `base` becomes relative to it, `base` itself ".".
 * The last net before an error reaches the model.
 */
export function withoutHostPaths(error: SpillwayError, base: string): SpillwayError {
  const scrub = (text: string) => text.split(`${base}${path.sep}`).join('').split(base).join('.');
  const message = scrub(error.message);
  const details = error.details === undefined ? undefined : (JSON.parse(scrub(JSON.stringify(error.details))) as Record<string, unknown>);
  if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  return new SpillwayError(error.code, message, details, { cause: error.cause });
}

interface SystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
}

/** Calls on files and folders: a system error from another call (a socket, a child's pipe) is not a disk fault. */
const fileSyscalls = new Set([
  'open', 'close', 'read', 'write', 'writev', 'readv', 'fsync', 'fdatasync', 'ftruncate', 'truncate', 'rename', 'link', 'unlink', 'symlink',
  'readlink', 'realpath', 'mkdir', 'mkdtemp', 'rmdir', 'rm', 'scandir', 'opendir', 'stat', 'lstat', 'fstat', 'statfs', 'copyfile', 'access',
  'chmod', 'fchmod', 'chown', 'fchown', 'utime', 'futime', 'cp',
]);

/** Errnos of sockets and pipes, which share syscalls (read, write) with files. */
const streamErrnos = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRINUSE', 'ENOTFOUND', 'EAI_AGAIN', 'ENOTCONN']);

function isSystemError(error: unknown): error is SystemError {
  if (!(error instanceof Error)) return false;
  const candidate = error as Partial<SystemError>;
  if (typeof candidate.code !== 'string' || !/^E[A-Z0-9]+$/.test(candidate.code) || streamErrnos.has(candidate.code)) return false;
  return typeof candidate.syscall === 'string' && fileSyscalls.has(candidate.syscall);
}

function shownPath(absolute: string | undefined, base: string | undefined): string | undefined {
  if (absolute === undefined || base === undefined) return undefined;
  const relative = path.relative(base, absolute);
  // "..x" is a name inside; only a ".." segment leads out.
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

function sentence(code: DiskFaultCode, errno: string, operation: DiskOperation): string {
  switch (code) {
    case 'DISK_FULL':
      return `The sandbox disk is full (${errno})`;
    case 'SANDBOX_READ_ONLY':
      return `The sandbox is not writable (${errno}: a read-only file system or a folder without write permission)`;
    case 'DISK_IO':
      return `The file system failed to ${operation} (${errno})`;
  }
}

const advice: Record<DiskFaultCode, string> = {
  DISK_FULL: 'Tell the user the server is out of disk space; retrying will fail until space is freed.',
  SANDBOX_READ_ONLY: 'Tell the user the server cannot write files; retrying will not help until an operator fixes it.',
  DISK_IO: 'The call can be retried; if it fails again, tell the user.',
};
