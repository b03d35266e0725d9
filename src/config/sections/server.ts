import { Type } from '../../util/type-builder.js';
import { oneOf } from '../../util/schema-builders.js';
import { closed, integerKey, section, variant } from './parts.js';

/** Configuration keys for the MCP front over Streamable HTTP and who may call it. */

const principalName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$',
  description: 'The principal this token stands for: a folder name (letters, digits, `.`, `_`, `@`, `-`; at most 64 characters).',
});

export const bearerToken = oneOf([
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

export const serverAuth = oneOf(
  [
    variant(
      'mode',
      'none',
      {},
      {
        description:
          "none: no authentication, every caller is the principal `local`; allowed only when server.host is a loopback address. bearer: static tokens, each mapped to a principal. oauth: OAuth 2.1 resource server (MCP authorization spec), JWT access tokens checked against the issuer's keys.",
      },
    ),
    variant('mode', 'bearer', {
      tokens: Type.Array(bearerToken, { minItems: 1, description: 'Accepted tokens: `{principal, secretEnv}` or `{principal, sha256}`.' }),
    }),
    variant('mode', 'oauth', {
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
    }),
  ],
  { default: { mode: 'none' }, description: 'Who may call over HTTP, and as which principal. See docs/auth.md.' },
);

export const serverSchema = section('The MCP front over Streamable HTTP (`spillway serve`).', {
  host: Type.String({
    minLength: 1,
    default: '127.0.0.1',
    description: 'Address to listen on. A non-loopback address needs server.auth (bearer or oauth); with auth none the server refuses to start.',
  }),
  port: integerKey(0, 8787, 'TCP port; 0 picks a free one.', { maximum: 65535 }),
  path: Type.String({ pattern: '^/', default: '/mcp', description: 'URL path of the MCP endpoint.' }),
  sessionIdleMs: integerKey(1000, 21_600_000, "An HTTP MCP session with no request for this long is closed (its conversation's files stay until retention)."),
  auth: serverAuth,
  maxSessions: integerKey(1, 1000, 'Open MCP sessions on this server at most; an initialize over the cap gets HTTP 503 with code SESSION_LIMIT.'),
  maxSessionsPerPrincipal: integerKey(1, 250, 'Open MCP sessions of one principal at most; an initialize over the cap gets HTTP 429 with code SESSION_LIMIT.'),
  queueWaitMs: integerKey(
    1,
    30_000,
    "Longest wait for a slot in any admission queue (exports, charts, query_sql, query_files, scripts, each upstream); a call still waiting is refused with BUSY (or SQL_BUSY, SCRIPT_BUSY). Keep it below your clients' request timeout (60 s in the MCP SDK).",
  ),
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
      linkTtlSeconds: integerKey(1, 3600, 'How long a signed download link stays valid.', { maximum: 604_800 }),
    },
    { ...closed, description: 'The download route GET /files/<conversation>/outputs/<name> and its signed links (docs/auth.md).' },
  ),
  maxBodyBytes: integerKey(
    1024,
    4_194_304,
    'Largest HTTP request body, in bytes; a larger one gets HTTP 413 with code REQUEST_TOO_LARGE. Keep it above args.maxBytes (write_file content travels in a request).',
  ),
  maxJsonDepth: integerKey(
    8,
    64,
    'Deepest nesting of arrays and objects in a JSON request body; a deeper one is refused (HTTP 400, code REQUEST_TOO_DEEP) by a scan of the raw bytes, before it is parsed.',
    { maximum: 1000 },
  ),
  maxConnections: integerKey(
    1,
    2048,
    'Open HTTP connections at most; a request on a connection over the cap gets HTTP 503 with Retry-After and code CONNECTION_LIMIT.',
  ),
  maxConnectionsPerAddress: integerKey(
    1,
    256,
    'Open HTTP connections from one client address (IPv6: one /64) at most; over it, HTTP 503 with code CONNECTION_LIMIT. Behind a reverse proxy every connection comes from the proxy: set it to server.maxConnections there.',
  ),
  headersTimeoutMs: integerKey(
    100,
    10_000,
    "A request's headers must arrive within this long of the connection opening (or of the request's first byte); otherwise the server answers 408 and closes the connection. At most server.requestTimeoutMs.",
  ),
  requestTimeoutMs: integerKey(
    100,
    60_000,
    'A request (headers and body) must arrive in full within this long; otherwise it gets HTTP 408 and the connection is closed.',
  ),
  idleTimeoutMs: integerKey(
    100,
    10_000,
    'A kept-alive connection with no request for this long is closed. A connection whose answer is still open (an MCP SSE stream, a running tool call) is never idle.',
  ),
});
