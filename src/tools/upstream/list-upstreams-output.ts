import { Type } from '../../util/type-builder.js';

/** list_upstreams' value (the `result` of its structured content). */
export const listUpstreamsOutput = Type.Object({
  upstreams: Type.Array(
    Type.Object(
      {
        name: Type.String(),
        transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
        target: Type.String({ description: 'The command line or URL (no env values, headers or credentials).' }),
        state: Type.Union([
          Type.Literal('connected'),
          Type.Literal('connecting'),
          Type.Literal('reconnecting'),
          Type.Literal('failed'),
          Type.Literal('closed'),
        ]),
        server: Type.Optional(Type.Object({ name: Type.String(), version: Type.String() })),
        connectedAt: Type.Optional(Type.String()),
        failures: Type.Integer({ minimum: 0, description: 'Consecutive failed attempts since the last connection.' }),
        restarts: Type.Integer({ minimum: 0, description: 'Times it was restarted or reconnected because it stopped answering pings or calls.' }),
        lastError: Type.Optional(Type.String({ description: "With the server's recent stderr." })),
        nextAttemptAt: Type.Optional(Type.String()),
        handshakeDeadline: Type.Optional(Type.String({ description: 'While connecting: when the attempt fails if the handshake has not completed.' })),
        pid: Type.Optional(Type.Integer()),
        offered: Type.Array(Type.String(), { description: 'The tools as the host offers them (NAME__tool).' }),
      },
      { description: 'One configured upstream MCP server and its state.' },
    ),
  ),
});
