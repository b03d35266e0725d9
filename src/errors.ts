/**
 * One error type for the whole host. `code` is stable and machine-readable;
 * `message` says what was wrong and what to do instead; `details` holds typed
 * facts (the offending path, the allowed values, ...) rather than baking them
 * into the text.
 *
 * Every code is listed in {@link errorCodes} with what it means.
 */
export const errorCodes = {
  // configuration
  CONFIG_INVALID: 'The configuration failed validation; details.errors names each key.',
  CONFIG_UNREADABLE: 'The configuration file could not be read or is not JSON.',

  // sandbox paths (every path from a model is untrusted)
  PATH_EMPTY: 'The path is empty.',
  PATH_ABSOLUTE: 'Absolute paths are refused; paths are relative to the conversation folder.',
  PATH_TRAVERSAL: 'A ".." segment is refused.',
  PATH_NUL: 'The path contains a NUL byte.',
  PATH_BACKSLASH: 'Backslashes are refused; use "/" between folders.',
  PATH_INVALID_UNICODE: 'The path holds a lone surrogate, which cannot name a file without being re-encoded.',
  PATH_TOO_LONG: 'The path is longer than allowed.',
  PATH_ESCAPES: 'The path resolves (through a symlink) outside the conversation folder.',
  PATH_NOT_FOUND: 'No file at that path.',
  PATH_EXPIRED: 'The file was removed by retention; run the query again.',
  PATH_NOT_FILE: 'The path is not a regular file (a folder, FIFO, socket or device).',
  PATH_HARDLINK: 'The file has more than one hard link and is refused.',
  PATH_FOLDER_NOT_ALLOWED: 'This operation is not allowed in that sandbox folder.',
  PATH_EXISTS: 'A file with that name already exists.',
  CONVERSATION_INVALID: 'The conversation id from the request context is not usable.',
  PRINCIPAL_INVALID: 'The principal name (from auth or the library context) is not usable as a folder name; details.reason says why.',
  SANDBOX_LAYOUT_OLD:
    'The sandbox root holds conversation folders of the layout before principals (<root>/<conversation>); run `spillway migrate-sandbox --root <dir>` once.',
  SANDBOX_ROOT_INVALID: 'The sandbox root is missing its marker file or is unsafe.',

  // host and tools
  TOOL_NOT_FOUND: 'No tool with that name is registered.',
  TOOL_EXISTS: 'A tool with that name is already registered.',
  INVALID_ARGUMENTS: "The arguments failed the tool's input schema; details.errors lists each by JSON path.",
  TOOL_FAILED: 'The tool threw an error.',
  TOOL_TIMEOUT: 'The tool did not answer in time.',
  RESULT_TOO_LARGE: 'A value is larger than its cap.',
  INVALID_JSON: 'A file or value is not valid JSON.',
  NOT_A_TABLE: 'The source is not a table (rows of objects).',
  UNKNOWN_COLUMN: 'A column named in the call does not exist in the source.',
  INVALID_RANGE: 'A row range is negative, not an integer, or otherwise unusable.',
  ROW_LIMIT: 'The selection has more rows than the output allows.',
  COLUMN_LIMIT:
    'The selection has more columns than the output allows (an XLSX sheet 16,384, a document table 63); details.columns and details.limit say how many. Name fewer with columns, or export CSV or Parquet.',
  WORKER_FAILED: 'A worker thread failed while building a file.',
  EXPORT_FAILED:
    "The file's writer (exceljs, docx, pptxgenjs, ...) threw on this selection; nothing was written. details.reason holds its message, details.format the format. The same call fails again.",
  FORMAT_INVALID: 'A column format is unknown or malformed; details.field names it, details.allowed lists the names.',
  FORMAT_MISMATCH:
    "A column format does not fit the column's values (a date format on text, a number format on words); details.column and details.value show one.",

  // delegation and policy
  ARGS_NOT_OBJECT: 'An arguments file or overrides value is not a JSON object.',
  DELEGATION_LOOP: 'A delegating call may not target itself.',
  FILE_REF_INVALID: 'A {"$file"} reference in overrides is malformed or points at nothing.',
  PERMISSION_DENIED: 'The policy denies this tool.',
  APPROVAL_DECLINED: 'The user declined or cancelled the approval.',
  APPROVAL_UNAVAILABLE: 'The policy asks for approval but no approval channel is available.',
  UPSTREAM_UNAVAILABLE: 'The upstream MCP server is not connected.',
  UPSTREAM_ERROR: 'The upstream MCP server returned an error.',

  // scripts
  SCRIPT_SYNTAX: 'The script has a syntax error.',
  SCRIPT_ERROR: 'The script threw an exception.',
  SCRIPT_LIMIT: 'The script hit a limit (time, memory, stack, bytes read or written, output); details.limit names the config key, details.value its value.',
  SCRIPT_BUSY: 'Too many scripts are running or waiting for a worker; details.running and details.waiting say how many.',

  // SQL
  SQL_READ_ONLY: 'Only read-only statements are allowed.',
  SQL_ERROR: 'The database rejected the statement.',
  SQL_TIMEOUT: 'The query ran longer than allowed and was interrupted.',
  SQL_SOURCE_UNAVAILABLE: 'The configured database cannot be opened or reached.',
  SQL_FILE_REFUSED: "query_files may read only this conversation's own data files, each named by its sandbox path; details.file names the one refused.",
  SQL_LIMIT: 'The query hit a limit (memory, or rows of a chart); details.limit names the config key, details.value its value.',
  SQL_BUSY: 'Too many file queries are running or waiting; details.running and details.waiting say how many.',

  // charts
  CHART_SPEC_INVALID:
    'The Vega-Lite specification is not usable (not an object, brings its own data, fetches a URL, or uses a refused expression); details.pointer says where.',
  CHART_TOO_LARGE:
    'The chart would bind, draw or allocate more than a cap allows (charts.maxRows, charts.maxMarks, charts.maxPixels, charts.memoryBytes, or a fixed cap on bins and generated values); details.limit names it. Aggregate first with query_files or query_sql, or draw less.',
  CHART_FAILED:
    'Vega could not render the chart, or its chart process crashed or ran past charts.timeoutMs (details.limit) and was killed; details.message holds the reason. The next chart gets a fresh process.',

  // retention
  RETENTION_LOCKED: 'Another sweep holds the lock on this sandbox root.',

  // fleet coordination
  COORDINATION_UNAVAILABLE:
    'The coordination store (coordination.redis) cannot be reached; nothing was changed. details.retryable is true: the same call can be sent again; details.setting names the key at start.',

  // server, identity and admission
  AUTH_CONFIG_INVALID:
    'server.auth is unusable (a token without a secret, an OAuth issuer without a JWKS, no auth on a non-loopback address); the message names the key.',
  DOWNLOAD_CONFIG_INVALID:
    'server.publicUrl is set without a usable download signing key (server.downloads.signingKeyEnv or signingKeyFile: unset, unreadable or under 32 bytes); the message names the key.',
  SERVER_LISTEN_FAILED: 'The server could not listen on its address (port in use, address not available, permission).',
  SESSION_LIMIT:
    'Too many MCP sessions are open (server.maxSessions, or the per-principal cap); details.open and details.limit say how many. Close one or retry later.',
  BUSY: 'The server is at a capacity cap for this kind of work; details.queue names it, details.running, details.waiting and details.limit say how busy it is. Retry later.',
  CONNECTION_LIMIT:
    'Too many HTTP connections are open (server.maxConnections, or server.maxConnectionsPerAddress from one client address); details.scope says which, details.open and details.limit how many. Answered with HTTP 503 and Retry-After.',
  REQUEST_TOO_LARGE: 'The HTTP request body is larger than server.maxBodyBytes (HTTP 413); details.value is the cap.',
  REQUEST_TOO_DEEP: 'The JSON request body nests arrays and objects deeper than server.maxJsonDepth (HTTP 400); details.value is the cap.',

  // MCP tasks (task-augmented tools/call)
  TASK_NOT_FOUND: 'No task with that id for this session: never created here, already fetched, or forgotten when its ttl ended.',
  TASK_LIMIT:
    'Too many tasks are held (tasks.maxPerSession for this session, tasks.maxPerPrincipal over all its sessions); details.scope says which, details.open and details.limit how many. Fetch or cancel one first.',
  TASK_FINISHED: 'The task has already finished (completed, failed or cancelled); it cannot be cancelled.',
  TASK_NOT_SUPPORTED: 'The tool does not run as a task (its listing has no execution.taskSupport); call it without `task`.',
  TASK_CANCELLED: 'The task was cancelled (tasks/cancel, the end of its ttl or of its session) before it finished; it has no result.',

  // disk faults (paths in messages are relative to the conversation)
  DISK_FULL: 'The sandbox disk is full (or the quota of the file system is reached); nothing was written.',
  SANDBOX_READ_ONLY: 'The sandbox is on a read-only file system or a folder is not writable; nothing was written.',
  DISK_IO: 'The file system failed to read or write (an I/O error); nothing was written.',

  INTERNAL: 'An unexpected failure inside spillway.',
} as const;

export type ErrorCode = keyof typeof errorCodes;

/**
 * Whether the same call may succeed when simply tried again, per code (sent to
 * MCP clients as `_meta["spillway/error"].retryable`). Transient conditions (a
 * busy pool, a timeout, a worker or upstream that failed) are retryable; a call
 * that broke a rule fails the same way until the caller changes it.
 */
export const retryableErrors = {
  CONFIG_INVALID: false,
  CONFIG_UNREADABLE: false,
  PATH_EMPTY: false,
  PATH_ABSOLUTE: false,
  PATH_TRAVERSAL: false,
  PATH_NUL: false,
  PATH_BACKSLASH: false,
  PATH_INVALID_UNICODE: false,
  PATH_TOO_LONG: false,
  PATH_ESCAPES: false,
  PATH_NOT_FOUND: false,
  PATH_EXPIRED: false,
  PATH_NOT_FILE: false,
  PATH_HARDLINK: false,
  PATH_FOLDER_NOT_ALLOWED: false,
  PATH_EXISTS: false,
  CONVERSATION_INVALID: false,
  PRINCIPAL_INVALID: false,
  SANDBOX_LAYOUT_OLD: false,
  SANDBOX_ROOT_INVALID: false,
  TOOL_NOT_FOUND: false,
  TOOL_EXISTS: false,
  INVALID_ARGUMENTS: false,
  // A tool's own failure may be transient (a flaky service behind it); the message says more.
  TOOL_FAILED: true,
  TOOL_TIMEOUT: true,
  RESULT_TOO_LARGE: false,
  INVALID_JSON: false,
  NOT_A_TABLE: false,
  UNKNOWN_COLUMN: false,
  INVALID_RANGE: false,
  ROW_LIMIT: false,
  COLUMN_LIMIT: false,
  WORKER_FAILED: true,
  // A writer that throws on a selection throws on it again.
  EXPORT_FAILED: false,
  ARGS_NOT_OBJECT: false,
  DELEGATION_LOOP: false,
  FILE_REF_INVALID: false,
  PERMISSION_DENIED: false,
  APPROVAL_DECLINED: false,
  // The approval channel may be there next time (another client, the user back).
  APPROVAL_UNAVAILABLE: true,
  UPSTREAM_UNAVAILABLE: true,
  UPSTREAM_ERROR: true,
  SCRIPT_SYNTAX: false,
  SCRIPT_ERROR: false,
  SCRIPT_LIMIT: false,
  SCRIPT_BUSY: true,
  SQL_READ_ONLY: false,
  SQL_ERROR: false,
  SQL_TIMEOUT: true,
  SQL_SOURCE_UNAVAILABLE: true,
  SQL_FILE_REFUSED: false,
  SQL_LIMIT: false,
  SQL_BUSY: true,
  CHART_SPEC_INVALID: false,
  CHART_TOO_LARGE: false,
  // A renderer failure on a valid spec is not expected to change on a retry.
  CHART_FAILED: false,
  RETENTION_LOCKED: true,
  FORMAT_INVALID: false,
  FORMAT_MISMATCH: false,
  COORDINATION_UNAVAILABLE: true,
  AUTH_CONFIG_INVALID: false,
  DOWNLOAD_CONFIG_INVALID: false,
  SERVER_LISTEN_FAILED: false,
  // Sessions close (idle or by their clients) and queues drain.
  SESSION_LIMIT: true,
  BUSY: true,
  CONNECTION_LIMIT: true,
  REQUEST_TOO_LARGE: false,
  REQUEST_TOO_DEEP: false,
  TASK_NOT_FOUND: false,
  // Tasks are fetched, cancelled or forgotten at their ttl.
  TASK_LIMIT: true,
  TASK_FINISHED: false,
  TASK_NOT_SUPPORTED: false,
  TASK_CANCELLED: false,
  // Space may be freed, but not by retrying at once; the caller should tell the user.
  DISK_FULL: false,
  SANDBOX_READ_ONLY: false,
  // An I/O error may be a passing fault of the device.
  DISK_IO: true,
  INTERNAL: false,
} as const satisfies Record<ErrorCode, boolean>;

export function isRetryable(code: ErrorCode): boolean {
  return retryableErrors[code];
}

export type ErrorDetails = Record<string, unknown>;

/** The plain shape an error takes across a worker boundary or in a record. */
export interface SerializedError {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

const marker = Symbol.for('spillway.error');

export class SpillwayError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly [marker] = true;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SpillwayError';
    this.code = code;
    this.details = details;
  }

  /** Recognises a SpillwayError even when it came from another copy of the module. */
  static is(value: unknown): value is SpillwayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  toJSON(): SerializedError {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }

  /** Rebuilds an error posted as plain data (from a worker thread). */
  static fromJSON(data: SerializedError): SpillwayError {
    const code = Object.hasOwn(errorCodes, data.code) ? data.code : 'INTERNAL';
    return new SpillwayError(code, data.message, data.details);
  }
}

/** Any thrown value as a SpillwayError; unknown failures keep their message under `fallback`. */
export function toSpillwayError(error: unknown, fallback: ErrorCode = 'INTERNAL'): SpillwayError {
  if (SpillwayError.is(error)) return error;
  if (isSerializedError(error)) return SpillwayError.fromJSON(error);
  if (error instanceof Error) return new SpillwayError(fallback, error.message, undefined, { cause: error });
  return new SpillwayError(fallback, String(error));
}

export function isSerializedError(value: unknown): value is SerializedError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.code === 'string' && typeof candidate.message === 'string' && Object.hasOwn(errorCodes, candidate.code);
}
