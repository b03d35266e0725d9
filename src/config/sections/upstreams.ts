import { Type } from '../../util/type-builder.js';
import { oneOf, recordOf } from '../../util/schema-builders.js';
import { closed, integerKey, section, stringMap } from './parts.js';

/** Configuration keys for upstream MCP servers whose tools the host offers. */

/** Per-upstream caps; absent, upstream.maxConcurrent and upstream.maxWaiting apply. */
const upstreamAdmission = {
  maxConcurrent: Type.Optional(Type.Integer({ minimum: 1, description: 'Calls to this upstream running at once (default upstream.maxConcurrent).' })),
  maxWaiting: Type.Optional(Type.Integer({ minimum: 0, description: 'Calls to this upstream waiting for a slot (default upstream.maxWaiting).' })),
};

export const upstreamServer = oneOf([
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

export const upstreamsSchema = recordOf(upstreamServer, {
  default: {},
  description: 'Upstream MCP servers keyed by name (letters, digits, _ and -); their tools appear as NAME__tool.',
  propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$' },
});

export const upstreamSchema = section('Defaults for every upstream server.', {
  timeoutMs: integerKey(1, 60_000, 'A call to an upstream tool that takes longer fails (its error is spilled).'),
  reconnectMinMs: integerKey(1, 1000, 'First reconnect delay after an upstream fails.'),
  reconnectMaxMs: integerKey(1, 60_000, 'Longest reconnect delay (the delay doubles up to this).'),
  maxMessageBytes: integerKey(
    1_048_576,
    67_108_864,
    "Largest single message accepted from a stdio upstream (the MCP SDK's default is 10 MiB); a larger result fails the call with RESULT_TOO_LARGE and the server is restarted. One message is read and parsed in one piece on the server's thread (~25 ms a MiB here), so a larger cap lets one answer hold every other call up longer.",
  ),
  handshakeTimeoutMs: integerKey(
    1,
    30_000,
    'Deadline for an upstream to start and complete the MCP handshake (initialize and the tool listing); past it the attempt has failed and is retried with back-off. Serving never waits for it.',
  ),
  pingIntervalMs: integerKey(0, 30_000, 'A connection idle this long gets an MCP ping; 0 turns idle pings off (a ping still follows every call timeout).'),
  pingTimeoutMs: integerKey(1, 10_000, 'A ping not answered within this time has failed.'),
  maxFailures: integerKey(
    1,
    3,
    'Failed pings, or timed-out calls, in a row after which an upstream is restarted (stdio: its process killed and started again) or reconnected (HTTP), with back-off.',
  ),
  maxConcurrent: integerKey(1, 8, 'Calls to one upstream running at once; more wait (upstreams.NAME.maxConcurrent overrides).'),
  maxWaiting: integerKey(0, 32, 'Calls to one upstream waiting for a slot at most; more are refused with BUSY (upstreams.NAME.maxWaiting overrides).'),
});
