export { createMcpServer, toCallToolResult, toMcpTool, type McpSession } from './mcp-server.js';
export { startHttpFront, type HttpFront, type HttpFrontOptions } from './http-server.js';
export { serveStdio, newStdioConversationId } from './stdio-server.js';
export { startUpstreams, UpstreamManager, type UpstreamReport, type UpstreamStatus } from '../upstream/index.js';
