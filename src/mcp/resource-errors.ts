import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SpillwayError } from '../errors.js';

/** The spec's "resource not found" (-32002): also for paths the sandbox refuses, so a refusal never confirms a file exists. */
export const resourceNotFoundCode = -32002;

/** A failed resources/* request as MCP: refused or missing paths are "not found", the rest internal errors; the spillway code in `data.code`. */
export function resourceError(uri: string, error: SpillwayError): McpError {
  if (error.code.startsWith('PATH_') || error.code === 'CONVERSATION_INVALID' || error.code === 'PRINCIPAL_INVALID') {
    return new McpError(resourceNotFoundCode, `Resource not found: ${error.message}`, { uri, code: error.code });
  }
  return new McpError(-32603, error.message, { uri, code: error.code });
}
