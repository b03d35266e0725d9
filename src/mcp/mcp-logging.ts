import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SetLevelRequestSchema, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { atLeast, isCallLogLevel, type CallLogEntry, type CallLogLevel } from '../host/call-log.js';

/** What a session hears about its calls before it sets a level: problems only, so a client that never asks is not flooded. */
export const defaultLogLevel: CallLogLevel = 'warning';

/** The logger name in notifications/message. */
const loggerName = 'spillway';

/**
 * MCP logging for one session: `logging/setLevel` sets the session's level;
 * each call's own messages (spills, cuts, refusals, screening, a tool's
 * `context.notify`) go out as notifications/message on that call's stream,
 * at that level or above. Nothing of another session's calls is ever sent.
 */
export function installLogging(server: Server): { forCall(send: (notification: ServerNotification) => Promise<void>): (entry: CallLogEntry) => void } {
  let level: CallLogLevel = defaultLogLevel;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    // The SDK's schema has checked the level already; the guard keeps a future level from being trusted blindly.
    if (isCallLogLevel(request.params.level)) level = request.params.level;
    return {};
  });
  return {
    forCall: (send) => (entry) => {
      if (!atLeast(entry.level, level)) return;
      send({ method: 'notifications/message', params: { level: entry.level, logger: loggerName, data: { message: entry.message, ...entry.data } } }).catch(
        () => undefined,
      );
    },
  };
}
