import { Type, type Static } from '@sinclair/typebox';
import { enumOf, oneOf, recordOf } from '../util/schema-builders.js';

/**
 * The configuration schema: the one place a key, its type, its limits, its
 * description and its default are written. It is the JSON Schema ajv checks
 * a configuration against, `Config` is derived from it, and
 * config/schema.json, config/default.json and docs/configuration.md are
 * generated from it (`npm run docs`; a test fails when they are stale).
 */

const decision = enumOf(['allow', 'deny', 'ask']);

const closed = { additionalProperties: false } as const;

const spillToolOverride = Type.Object(
  {
    thresholdChars: Type.Optional(Type.Integer({ minimum: 0, description: 'Spill threshold for these tools.' })),
    inlineMaxTokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Inline token cap for these tools.' })),
    spill: Type.Optional(Type.Boolean({ description: "false keeps these tools' results inline (never written to a file)." })),
  },
  closed,
);

const screeningToolOverride = Type.Object(
  {
    secrets: Type.Optional(enumOf(['redact', 'flag', 'off'], { description: "Secrets in these tools' results." })),
    injection: Type.Optional(enumOf(['flag', 'off'], { description: "Instruction-shaped text and invisible Unicode in these tools' results." })),
    keep: Type.Optional(Type.Boolean({ description: 'Spill files of these tools keep the original values.' })),
  },
  closed,
);

const stringMap = recordOf(Type.String());

/** Per-upstream caps; absent, upstream.maxConcurrent and upstream.maxWaiting apply. */
const upstreamAdmission = {
  maxConcurrent: Type.Optional(Type.Integer({ minimum: 1, description: 'Calls to this upstream running at once (default upstream.maxConcurrent).' })),
  maxWaiting: Type.Optional(Type.Integer({ minimum: 0, description: 'Calls to this upstream waiting for a slot (default upstream.maxWaiting).' })),
};

const upstreamServer = oneOf([
  Type.Object(
    {
      command: Type.String({ minLength: 1, description: 'Program to start (stdio transport).' }),
      args: Type.Optional(Type.Array(Type.String())),
      env: Type.Optional(stringMap),
      cwd: Type.Optional(Type.String()),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
      ...upstreamAdmission,
    },
    closed,
  ),
  Type.Object(
    {
      url: Type.String({ pattern: '^https?://', description: 'Streamable HTTP endpoint.' }),
      headers: Type.Optional(stringMap),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
      ...upstreamAdmission,
    },
    closed,
  ),
]);

const sqlSource = oneOf(
  [
    Type.Object(
      {
        type: Type.Literal('demo', {
          description:
            'demo: the embedded SQLite database, built from demo.seed in data.dir on first start. sqlite: a SQLite file, opened read-only. postgres: a PostgreSQL server, every query in a READ ONLY transaction.',
        }),
      },
      closed,
    ),
    Type.Object(
      {
        type: Type.Literal('sqlite'),
        file: Type.String({ minLength: 1, description: 'Path of an existing SQLite database file; opened read-only and never created or changed.' }),
      },
      closed,
    ),
    Type.Object(
      {
        type: Type.Literal('postgres'),
        url: Type.String({
          pattern: '^postgres(ql)?://',
          description:
            "Connection URL, e.g. postgres://reader:secret@db.internal:5432/shop. Use a role with SELECT rights only: the read-only transaction stops writes to the database, the role's rights govern functions with effects outside it.",
        }),
      },
      closed,
    ),
  ],
  { description: 'Which database query_sql reads.', default: { type: 'demo' } },
);

const principalName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$',
  description: 'The principal this token stands for: a folder name (letters, digits, `.`, `_`, `@`, `-`; at most 64 characters).',
});

const bearerToken = oneOf([
  Type.Object(
    {
      principal: principalName,
      secretEnv: Type.String({
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Name of the environment variable holding the token; it must be set when the server starts.',
      }),
    },
    closed,
  ),
  Type.Object(
    {
      principal: principalName,
      sha256: Type.String({
        pattern: '^[0-9a-fA-F]{64}$',
        description: 'SHA-256 of the token, in hex (`printf %s "$TOKEN" | sha256sum`); the token itself is not stored.',
      }),
    },
    closed,
  ),
]);

const serverAuth = oneOf(
  [
    Type.Object(
      {
        mode: Type.Literal('none', {
          description:
            "none: no authentication, every caller is the principal `local`; allowed only when server.host is a loopback address. bearer: static tokens, each mapped to a principal. oauth: OAuth 2.1 resource server (MCP authorization spec), JWT access tokens checked against the issuer's keys.",
        }),
      },
      closed,
    ),
    Type.Object(
      {
        mode: Type.Literal('bearer'),
        tokens: Type.Array(bearerToken, { minItems: 1, description: 'Accepted tokens: `{principal, secretEnv}` or `{principal, sha256}`.' }),
      },
      closed,
    ),
    Type.Object(
      {
        mode: Type.Literal('oauth'),
        issuer: Type.String({ pattern: '^https?://', description: 'The authorization server (the `iss` claim tokens must carry).' }),
        audience: Type.String({ minLength: 1, description: "The `aud` value tokens must carry (usually this server's resource URL)." }),
        jwksUrl: Type.Optional(
          Type.String({
            pattern: '^https?://',
            description:
              "Where the issuer's signing keys are. Default: jwks_uri from the issuer's metadata (/.well-known/oauth-authorization-server, then openid-configuration), read at start.",
          }),
        ),
        resource: Type.Optional(
          Type.String({
            pattern: '^https?://',
            description: "This server's public URL of the MCP endpoint, as clients reach it (behind a proxy). Default: the URL it listens on.",
          }),
        ),
        requiredScopes: Type.Optional(
          Type.Array(Type.String({ minLength: 1 }), { description: 'Scopes every token must hold (403 insufficient_scope otherwise).' }),
        ),
        principalClaim: Type.Optional(
          Type.String({ minLength: 1, description: 'The claim that names the principal. Default `sub`; its value must be a valid folder name.' }),
        ),
      },
      closed,
    ),
  ],
  { default: { mode: 'none' }, description: 'Who may call over HTTP, and as which principal. See docs/auth.md.' },
);

export const configSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'Ignored; lets editors find this schema.' })),
    sandbox: Type.Object(
      {
        root: Type.String({
          minLength: 1,
          default: 'sandbox',
          description: 'Sandbox root folder. Holds the .spillway-sandbox marker and one folder per conversation.',
        }),
      },
      { ...closed, description: 'Where spilled results, argument files, scripts and outputs live.' },
    ),
    data: Type.Object(
      {
        dir: Type.String({ minLength: 1, default: 'data', description: 'Folder for the execution record (records.jsonl) and the embedded demo database.' }),
      },
      { ...closed, description: 'Host state that is not conversation data.' },
    ),
    server: Type.Object(
      {
        host: Type.String({
          minLength: 1,
          default: '127.0.0.1',
          description: 'Address to listen on. A non-loopback address needs server.auth (bearer or oauth); with auth none the server refuses to start.',
        }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8787, description: 'TCP port; 0 picks a free one.' }),
        path: Type.String({ pattern: '^/', default: '/mcp', description: 'URL path of the MCP endpoint.' }),
        sessionIdleMs: Type.Integer({
          minimum: 1000,
          default: 21_600_000,
          description: "An HTTP MCP session with no request for this long is closed (its conversation's files stay until retention).",
        }),
        auth: serverAuth,
        maxSessions: Type.Integer({
          minimum: 1,
          default: 1000,
          description: 'Open MCP sessions on this server at most; an initialize over the cap gets HTTP 503 with code SESSION_LIMIT.',
        }),
        maxSessionsPerPrincipal: Type.Integer({
          minimum: 1,
          default: 250,
          description: 'Open MCP sessions of one principal at most; an initialize over the cap gets HTTP 429 with code SESSION_LIMIT.',
        }),
        queueWaitMs: Type.Integer({
          minimum: 1,
          default: 30_000,
          description:
            "Longest wait for a slot in any admission queue (exports, charts, query_sql, query_files, scripts, each upstream); a call still waiting is refused with BUSY (or SQL_BUSY, SCRIPT_BUSY). Keep it below your clients' request timeout (60 s in the MCP SDK).",
        }),
        publicUrl: Type.Optional(
          Type.String({
            pattern: '^https?://[^/?#]+(/[^?#]*)?$',
            description:
              'The base URL users reach this server at (behind a proxy, e.g. https://files.example.com). When set, download cards carry a signed `downloadUrl` (needs server.downloads.signingKeyEnv or signingKeyFile); absent, they carry none.',
          }),
        ),
        downloads: Type.Object(
          {
            signingKeyEnv: Type.Optional(
              Type.String({
                pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
                description:
                  'Name of the environment variable holding the key that signs download links (at least 32 bytes). Every replica of a fleet needs the same key.',
              }),
            ),
            signingKeyFile: Type.Optional(
              Type.String({ minLength: 1, description: 'A file holding the signing key instead (a mounted secret); trailing newlines are ignored.' }),
            ),
            linkTtlSeconds: Type.Integer({ minimum: 1, maximum: 604_800, default: 3600, description: 'How long a signed download link stays valid.' }),
          },
          { ...closed, description: 'The download route GET /files/<conversation>/outputs/<name> and its signed links (docs/auth.md).' },
        ),
        maxBodyBytes: Type.Integer({
          minimum: 1024,
          default: 4_194_304,
          description:
            'Largest HTTP request body, in bytes; a larger one gets HTTP 413 with code REQUEST_TOO_LARGE. Keep it above args.maxBytes (write_file content travels in a request).',
        }),
        maxJsonDepth: Type.Integer({
          minimum: 8,
          maximum: 1000,
          default: 64,
          description:
            'Deepest nesting of arrays and objects in a JSON request body; a deeper one is refused (HTTP 400, code REQUEST_TOO_DEEP) by a scan of the raw bytes, before it is parsed.',
        }),
        maxConnections: Type.Integer({
          minimum: 1,
          default: 2048,
          description: 'Open HTTP connections at most; a request on a connection over the cap gets HTTP 503 with Retry-After and code CONNECTION_LIMIT.',
        }),
        maxConnectionsPerAddress: Type.Integer({
          minimum: 1,
          default: 256,
          description:
            'Open HTTP connections from one client address (IPv6: one /64) at most; over it, HTTP 503 with code CONNECTION_LIMIT. Behind a reverse proxy every connection comes from the proxy: set it to server.maxConnections there.',
        }),
        headersTimeoutMs: Type.Integer({
          minimum: 100,
          default: 10_000,
          description:
            "A request's headers must arrive within this long of the connection opening (or of the request's first byte); otherwise the server answers 408 and closes the connection. At most server.requestTimeoutMs.",
        }),
        requestTimeoutMs: Type.Integer({
          minimum: 100,
          default: 60_000,
          description: 'A request (headers and body) must arrive in full within this long; otherwise it gets HTTP 408 and the connection is closed.',
        }),
        idleTimeoutMs: Type.Integer({
          minimum: 100,
          default: 10_000,
          description:
            'A kept-alive connection with no request for this long is closed. A connection whose answer is still open (an MCP SSE stream, a running tool call) is never idle.',
        }),
      },
      { ...closed, description: 'The MCP front over Streamable HTTP (`spillway serve`).' },
    ),
    spill: Type.Object(
      {
        thresholdChars: Type.Integer({
          minimum: 0,
          default: 1000,
          description: 'Results longer than this many characters (after MCP unwrapping) are spilled to results/ or errors/.',
        }),
        tools: recordOf(spillToolOverride, {
          // Query results always get a path, however small: a 10-row aggregate can then be charted or exported by path.
          default: { query_sql: { thresholdChars: 0 }, query_files: { thresholdChars: 0 } },
          description:
            'Per-tool overrides keyed by tool-name pattern (`*` matches any run of characters, e.g. `github__*`). The most specific pattern (fewest wildcards, then longest) wins. By default query_sql and query_files results always spill (threshold 0), so even a small result has a path that build_chart, export_table and build_document take.',
        }),
      },
      { ...closed, description: 'When a tool result is written to a sandbox file.' },
    ),
    inline: Type.Object(
      {
        maxTokens: Type.Integer({
          minimum: 1,
          default: 50_000,
          description: 'Above this many tokens the model gets a whole-record prefix and a sentence saying how much it shows.',
        }),
        bytesPerToken: Type.Number({
          exclusiveMinimum: 0,
          default: 3,
          description: 'UTF-8 bytes per token used to estimate tokens without a tokenizer. 3 is a safe (pessimistic) figure for JSON and CSV.',
        }),
      },
      { ...closed, description: 'How much of a result the model reads inline.' },
    ),
    errors: Type.Object(
      {
        headChars: Type.Integer({ minimum: 1, default: 1500, description: 'Characters kept from the start of a long error message.' }),
        tailChars: Type.Integer({ minimum: 1, default: 1500, description: "Characters kept from the end (where a traceback's exception line usually is)." }),
      },
      { ...closed, description: "How a failed call's message is shortened for the model (the full text is spilled to errors/)." },
    ),
    reread: Type.Object(
      {
        maxLines: Type.Integer({ minimum: 1, default: 500, description: 'Lines returned by one read_file call at most.' }),
        maxChars: Type.Integer({ minimum: 100, default: 40_000, description: 'Characters returned by one read_file or search_file call at most.' }),
        maxLineChars: Type.Integer({
          minimum: 10,
          default: 2000,
          description: 'A longer line is cut and marked; read it with offset/limit on a pretty-printed copy or query it.',
        }),
        maxMatches: Type.Integer({ minimum: 1, default: 200, description: 'Matches returned by one search_file call at most.' }),
        maxListEntries: Type.Integer({ minimum: 1, default: 500, description: 'Files listed by one list_files call at most.' }),
      },
      { ...closed, description: 'Caps on what read_file, search_file and list_files return in one call.' },
    ),
    resources: Type.Object(
      {
        maxReadBytes: Type.Integer({
          minimum: 1024,
          default: 16_777_216,
          description:
            'Largest file one MCP resources/read returns (its size on the opened file); a larger one is refused with RESULT_TOO_LARGE naming the tools that read it in parts.',
        }),
      },
      { ...closed, description: 'MCP resources (files in outputs/) read back by a client.' },
    ),
    args: Type.Object(
      {
        maxBytes: Type.Integer({
          minimum: 1,
          default: 1_048_576,
          description: 'Largest arguments file (and largest expanded arguments) a delegating call accepts, in bytes. Also caps write_file.',
        }),
      },
      { ...closed, description: 'Arguments files for delegating calls.' },
    ),
    drawTable: Type.Object(
      {
        maxRows: Type.Integer({ minimum: 1, default: 2000, description: 'Rows one draw_table call may draw; above it the model is told to export instead.' }),
      },
      { ...closed, description: 'The Markdown table tool.' },
    ),
    documents: Type.Object(
      {
        maxTableRows: Type.Integer({
          minimum: 1,
          default: 5000,
          description: 'Rows one document table may hold (documents get slow to open past a few thousand); above it use export_table.',
        }),
      },
      { ...closed, description: 'DOCX and PPTX building.' },
    ),
    workers: Type.Object(
      {
        poolSize: Type.Integer({ minimum: 0, default: 0, description: 'Worker threads; 0 means one per CPU core.' }),
        maxQueue: Type.Integer({ minimum: 1, default: 64, description: 'Tasks that may wait for a free worker before new ones are refused.' }),
        taskTimeoutMs: Type.Integer({ minimum: 1000, default: 600_000, description: 'A file build running longer is stopped and its call fails.' }),
      },
      { ...closed, description: 'The worker-thread pool that builds files.' },
    ),
    records: Type.Object(
      {
        maxArgsBytes: Type.Integer({
          minimum: 256,
          default: 65_536,
          description: "Arguments larger than this are stored as a size and a preview, with the arguments file's path beside them.",
        }),
      },
      { ...closed, description: 'The execution record (data/records.jsonl): one line per call with arguments as called and as executed.' },
    ),
    retention: Type.Object(
      {
        days: Type.Number({
          exclusiveMinimum: 0,
          default: 7,
          description: 'Files in results/, errors/, args/ and scripts/ older than this many days are deleted.',
        }),
        cron: Type.String({ minLength: 9, default: '0 */6 * * *', description: 'When `spillway serve` runs the sweep (node-cron syntax, 5 or 6 fields).' }),
        maxBytes: Type.Integer({
          minimum: 0,
          default: 0,
          description: 'Quota for the whole sandbox in bytes (0 = none); the oldest non-output files go first.',
        }),
        maxBytesPerConversation: Type.Integer({ minimum: 0, default: 0, description: 'Quota per conversation in bytes (0 = none).' }),
        tempGraceMs: Type.Integer({
          minimum: 1000,
          default: 600_000,
          description:
            'Temporary files (and spill sidecars without their data) older than this are leftovers of an interrupted write: start-up and every sweep remove them from every folder, outputs/ included.',
        }),
      },
      { ...closed, description: 'The cleanup sweep. outputs/ is never touched.' },
    ),
    coordination: Type.Object(
      {
        redis: Type.Optional(
          Type.Object(
            {
              url: Type.String({
                pattern: '^rediss?://',
                description: 'Redis URL (redis:// or rediss://, password in the URL if any). spillway refuses to start when it cannot reach it.',
              }),
              keyPrefix: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: 64,
                  description: 'Put in front of every key spillway writes (default "spillway:"); give each fleet sharing one Redis its own.',
                }),
              ),
            },
            {
              ...closed,
              description: 'The Redis the replicas share. Absent: no Redis; this process coordinates itself (pid file sweep lock, its own spill numbers).',
            },
          ),
        ),
        sweepLeaseMs: Type.Integer({
          minimum: 1000,
          default: 60_000,
          description:
            "With Redis: how long the fleet's sweep lock outlives a replica that died holding it (the holder renews it every third of this while it sweeps).",
        }),
        jobs: Type.Object(
          {
            onReplicas: Type.Boolean({
              default: true,
              description:
                'With Redis: replicas (`spillway serve`) also take file-building jobs on their own worker threads. Set false when `spillway worker` nodes should build every file and replicas only serve.',
            }),
            lockMs: Type.Integer({
              minimum: 1000,
              default: 30_000,
              description:
                'With Redis: how long a job stays with a worker that stops answering (killed, frozen) before another worker takes it again. Workers renew it every half of this while they build.',
            }),
            retries: Type.Integer({
              minimum: 0,
              maximum: 10,
              default: 2,
              description: 'With Redis: how many times a job whose worker died is taken again by another worker before the call fails (WORKER_FAILED).',
            }),
          },
          {
            ...closed,
            default: { onReplicas: true, lockMs: 30_000, retries: 2 },
            description:
              'File-building jobs (exports, documents, tables drawn for the answer) when Redis coordinates a fleet: they go through a BullMQ queue and are built by `spillway worker` nodes (and replicas, unless onReplicas is false) on workers.poolSize threads each.',
          },
        ),
      },
      {
        ...closed,
        default: { sweepLeaseMs: 60_000, jobs: { onReplicas: true, lockMs: 30_000, retries: 2 } },
        description:
          'Replicas sharing one sandbox volume coordinate through Redis: the one sweep at a time (a lease lock), spill numbers within a conversation, the disk-quota totals, the expiry log (PATH_EXPIRED answers) and the file-building job queue. Without `redis`, one process coordinates itself as before.',
      },
    ),
    policy: Type.Object(
      {
        default: enumOf(['allow', 'deny', 'ask'], { default: 'allow', description: 'Decision for local tools no rule matches.' }),
        upstreamDefault: enumOf(['allow', 'deny', 'ask'], { default: 'ask', description: 'Decision for upstream tools no rule matches.' }),
        rules: recordOf(decision, { default: {}, description: 'Tool-name pattern (`*` wildcard) to decision. The most specific pattern wins.' }),
        approvalTimeoutMs: Type.Integer({
          minimum: 1,
          default: 120_000,
          description: "How long an `ask` waits for the client's answer to the approval request; no answer refuses the call.",
        }),
      },
      { ...closed, description: 'Permission for each tool call, judged on the expanded arguments.' },
    ),
    screening: Type.Object(
      {
        secrets: enumOf(['redact', 'flag', 'off'], {
          default: 'redact',
          description:
            'Secrets found in a result: `redact` (the model reads `[REDACTED:kind]`), `flag` (shown as they are, the model is told where they are), `off`.',
        }),
        injection: enumOf(['flag', 'off'], {
          default: 'flag',
          description: 'Instruction-shaped text and invisible Unicode in a result: `flag` (a warning line, invisible characters shown escaped) or `off`.',
        }),
        keep: Type.Boolean({
          default: false,
          description:
            'true: a spill file keeps the original values of redacted secrets (the model still reads them redacted); false: the file holds what the model read.',
        }),
        delegation: enumOf(['allow', 'deny', 'ask'], {
          default: 'ask',
          description:
            "A delegating call whose expanded arguments hold a detected secret: `ask` (approval, even where the policy allows the tool), `deny`, or `allow` (the tool's own policy decides).",
        }),
        maxFindings: Type.Integer({ minimum: 0, default: 100, description: "Findings listed by place in one result's metadata (counts are always complete)." }),
        tools: recordOf(screeningToolOverride, {
          default: {},
          description: 'Tool-name pattern (`*` wildcard) to screening settings; the most specific pattern wins.',
        }),
      },
      {
        ...closed,
        description: 'Screening of tool results: secrets redacted or flagged, injected instructions and invisible Unicode flagged (docs/security.md).',
      },
    ),
    upstreams: recordOf(upstreamServer, {
      default: {},
      description: 'Upstream MCP servers keyed by name (letters, digits, _ and -); their tools appear as NAME__tool.',
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$' },
    }),
    upstream: Type.Object(
      {
        timeoutMs: Type.Integer({ minimum: 1, default: 60_000, description: 'A call to an upstream tool that takes longer fails (its error is spilled).' }),
        reconnectMinMs: Type.Integer({ minimum: 1, default: 1000, description: 'First reconnect delay after an upstream fails.' }),
        reconnectMaxMs: Type.Integer({ minimum: 1, default: 60_000, description: 'Longest reconnect delay (the delay doubles up to this).' }),
        maxMessageBytes: Type.Integer({
          minimum: 1_048_576,
          default: 268_435_456,
          description:
            "Largest single message accepted from a stdio upstream (the MCP SDK's default is 10 MiB); a larger result fails the call with RESULT_TOO_LARGE and the server is restarted.",
        }),
        handshakeTimeoutMs: Type.Integer({
          minimum: 1,
          default: 30_000,
          description:
            'Deadline for an upstream to start and complete the MCP handshake (initialize and the tool listing); past it the attempt has failed and is retried with back-off. Serving never waits for it.',
        }),
        pingIntervalMs: Type.Integer({
          minimum: 0,
          default: 30_000,
          description: 'A connection idle this long gets an MCP ping; 0 turns idle pings off (a ping still follows every call timeout).',
        }),
        pingTimeoutMs: Type.Integer({ minimum: 1, default: 10_000, description: 'A ping not answered within this time has failed.' }),
        maxFailures: Type.Integer({
          minimum: 1,
          default: 3,
          description:
            'Failed pings, or timed-out calls, in a row after which an upstream is restarted (stdio: its process killed and started again) or reconnected (HTTP), with back-off.',
        }),
        maxConcurrent: Type.Integer({
          minimum: 1,
          default: 8,
          description: 'Calls to one upstream running at once; more wait (upstreams.NAME.maxConcurrent overrides).',
        }),
        maxWaiting: Type.Integer({
          minimum: 0,
          default: 32,
          description: 'Calls to one upstream waiting for a slot at most; more are refused with BUSY (upstreams.NAME.maxWaiting overrides).',
        }),
      },
      { ...closed, description: 'Defaults for every upstream server.' },
    ),
    script: Type.Object(
      {
        timeoutMs: Type.Integer({ minimum: 1, default: 10_000, description: 'Wall time of one run.' }),
        memoryBytes: Type.Integer({ minimum: 1_048_576, default: 134_217_728, description: 'QuickJS heap limit.' }),
        stackBytes: Type.Integer({
          minimum: 16_384,
          maximum: 262_144,
          default: 262_144,
          description: 'QuickJS stack limit (above 256 KiB deep recursion can corrupt the runtime).',
        }),
        maxReadBytes: Type.Integer({ minimum: 1, default: 268_435_456, description: 'Bytes one run may read from the sandbox.' }),
        maxWriteBytes: Type.Integer({ minimum: 1, default: 67_108_864, description: 'Bytes one run may write.' }),
        maxOutputChars: Type.Integer({ minimum: 1, default: 1_000_000, description: 'Characters of console output kept from one run.' }),
      },
      { ...closed, description: 'Limits of run_script (QuickJS in a worker).' },
    ),
    sql: Type.Object(
      {
        source: sqlSource,
        maxRows: Type.Integer({ minimum: 1, default: 100_000, description: 'Rows one query returns at most; the true total is still reported.' }),
        maxBytes: Type.Integer({
          minimum: 1024,
          default: 67_108_864,
          description:
            'Bytes (as JSON rows) one query returns at most, enforced in the query process; a result cut by it says so (cutAtBytes), and a single row larger than it is refused with RESULT_TOO_LARGE.',
        }),
        timeoutMs: Type.Integer({ minimum: 1, default: 30_000, description: 'A query running longer is interrupted.' }),
        maxConcurrent: Type.Integer({ minimum: 1, default: 2, description: 'Queries running at once; more wait for a slot.' }),
        maxWaiting: Type.Integer({ minimum: 0, default: 16, description: 'Queries waiting for a slot at most; more are refused with BUSY.' }),
      },
      { ...closed, description: 'The query_sql tool.' },
    ),
    analysis: Type.Object(
      {
        maxRows: Type.Integer({ minimum: 1, default: 100_000, description: 'Rows one query_files query returns at most; the true total is still reported.' }),
        timeoutMs: Type.Integer({
          minimum: 1,
          default: 30_000,
          description: 'A query running longer has its process killed (SQL_TIMEOUT); counted from when DuckDB is loaded.',
        }),
        memoryBytes: Type.Integer({ minimum: 16_777_216, default: 536_870_912, description: "DuckDB's memory_limit for one query (nothing spills to disk)." }),
        maxBytes: Type.Integer({
          minimum: 1024,
          default: 16_777_216,
          description:
            'Bytes (as JSON rows) one query_files query returns at most, measured in the DuckDB process while rows are read; a result cut by it says so (cutAtBytes), and a single row larger than it is refused with RESULT_TOO_LARGE.',
        }),
        threads: Type.Integer({ minimum: 1, maximum: 64, default: 1, description: 'DuckDB threads for one query.' }),
        maxConcurrent: Type.Integer({ minimum: 1, default: 2, description: 'File queries running at once across all conversations.' }),
        maxWaiting: Type.Integer({ minimum: 0, default: 16, description: 'File queries waiting for a slot at most; more are refused with SQL_BUSY.' }),
      },
      {
        ...closed,
        description:
          "query_files (and Parquet exports, chart rows): read-only DuckDB SQL over the conversation's own files, each query in its own child process.",
      },
    ),
    charts: Type.Object(
      {
        maxRows: Type.Integer({
          minimum: 1,
          default: 5000,
          description: 'Rows a chart may bind at most; more is refused (CHART_TOO_LARGE) with a hint to aggregate in SQL first.',
        }),
        maxMarks: Type.Integer({ minimum: 1, default: 20_000, description: 'Marks (bars, points, lines, labels) a rendered chart may hold at most.' }),
        timeoutMs: Type.Integer({ minimum: 1, default: 20_000, description: 'Rendering longer than this is stopped (the chart process is killed).' }),
        scale: Type.Number({ minimum: 0.5, maximum: 4, default: 2, description: 'PNG pixels per SVG unit (2 gives a sharp image on high-density screens).' }),
        maxPixels: Type.Integer({
          minimum: 10_000,
          maximum: 268_435_456,
          default: 16_777_216,
          description: "A chart's PNG area at most, in pixels at charts.scale (4096 × 4096 by default); a larger width × height is refused (CHART_TOO_LARGE).",
        }),
        memoryBytes: Type.Integer({
          minimum: 67_108_864,
          default: 1_073_741_824,
          description:
            "Heap of one chart process (V8's --max-old-space-size); a chart that needs more fails with CHART_TOO_LARGE and the next chart gets a fresh process.",
        }),
      },
      { ...closed, description: 'build_chart: Vega-Lite rendered to SVG and PNG in a child process with a capped heap and a deadline.' },
    ),
    demo: Type.Object(
      {
        rows: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 50_000, description: 'Transactions generated on first start.' }),
        seed: Type.Integer({ default: 20_261_130, description: 'Seed of the generator; the same seed gives the same data.' }),
      },
      { ...closed, description: 'The embedded demo database.' },
    ),
    watch: Type.Object(
      {
        maxWatchedFolders: Type.Integer({
          minimum: 0,
          default: 4096,
          description:
            'Folders the outputs watcher follows with a kernel watch (one inotify watch each: the sandbox root, conversation folders, outputs/ and its sub-folders); folders past this are polled.',
        }),
        pollIntervalMs: Type.Integer({
          minimum: 100,
          default: 2000,
          description:
            'How often folders past maxWatchedFolders are looked at (ms). Polling sees files that appear (or are renamed into place), not files rewritten in place.',
        }),
        outputsDepth: Type.Integer({
          minimum: 0,
          maximum: 16,
          default: 3,
          description: 'Levels of sub-folders under outputs/ that are watched; files deeper down are not announced.',
        }),
      },
      { ...closed, description: 'The outputs watcher of `spillway serve`: files that appear in outputs/ by any route are announced to the conversation.' },
    ),
    log: Type.Object(
      {
        level: enumOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
      },
      { ...closed, description: 'Structured JSON logs on stderr.' },
    ),
  },
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://spillway.dev/config.schema.json',
    title: 'spillway configuration',
    description:
      'Every key has a default in config/default.json. A file given with --config or SPILLWAY_CONFIG is laid over the defaults; relative paths resolve against the folder of the file that sets them.',
    ...closed,
  },
);

/** The configuration as loaded: every key present, paths absolute. */
export type Config = Omit<Static<typeof configSchema>, '$schema'>;

export type Decision = Static<typeof decision>;
export type SpillToolOverride = Static<typeof spillToolOverride>;
export type UpstreamConfig = Static<typeof upstreamServer>;
export type SqlSource = Static<typeof sqlSource>;

/** A partial configuration as a user writes it: any subset of keys, nested. */
export type ConfigOverrides = { [K in keyof Config]?: Config[K] extends Record<string, unknown> ? Partial<Config[K]> : Config[K] };
export type ServerAuthConfig = Static<typeof serverAuth>;
export type BearerTokenConfig = Static<typeof bearerToken>;
