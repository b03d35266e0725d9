import { Type } from '@sinclair/typebox';
import { oneOf, recordOf } from '../../util/schema-builders.js';
import { closed, stringMap } from './parts.js';

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

export const upstreamSchema = Type.Object(
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
);
