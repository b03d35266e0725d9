import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/** The parts of the MCP SDK's client half that upstream connections use. */
export interface ClientSdk {
  Client: typeof ClientModule.Client;
  StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  StreamableHTTPError: typeof HttpModule.StreamableHTTPError;
  getDefaultEnvironment: typeof StdioModule.getDefaultEnvironment;
  McpError: typeof TypesModule.McpError;
  ErrorCode: typeof TypesModule.ErrorCode;
  JSONRPCMessageSchema: typeof TypesModule.JSONRPCMessageSchema;
  ToolListChangedNotificationSchema: typeof TypesModule.ToolListChangedNotificationSchema;
}

let loading: Promise<ClientSdk> | undefined;
let loaded: ClientSdk | undefined;

/**
 * Imports the SDK's client half on the first upstream connection: a host with
 * no upstreams (most `spillway call`s) never pays the ~100 ms of loading it
 * and zod.
 */
export function loadClientSdk(): Promise<ClientSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, stdio, http, types]) => {
    loaded = {
      Client: client.Client,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      JSONRPCMessageSchema: types.JSONRPCMessageSchema,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    };
    return loaded;
  });
  return loading;
}

/** The SDK's code of an McpError, else undefined (an error can only be the SDK's once a connection has loaded it). */
export function mcpErrorCode(error: unknown): number | undefined {
  return loaded !== undefined && error instanceof loaded.McpError ? error.code : undefined;
}

/** The SDK's request-timeout error: the SDK gave up waiting for an answer. */
export function isRequestTimeout(error: unknown): error is Error {
  return loaded !== undefined && mcpErrorCode(error) === loaded.ErrorCode.RequestTimeout;
}

/** The SDK's connection-closed error: the transport ended under a request. */
export function isConnectionClosed(error: unknown): error is Error {
  return loaded !== undefined && mcpErrorCode(error) === loaded.ErrorCode.ConnectionClosed;
}

/** The Streamable HTTP transport's HTTP status, for an error it raised. */
export function httpErrorStatus(error: unknown): number | undefined {
  return loaded !== undefined && error instanceof loaded.StreamableHTTPError ? error.code : undefined;
}
