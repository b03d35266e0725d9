import type { Host } from '../host/host.js';
import type { ResultSpiller } from './context-guard.js';

/** A spiller that writes results without a reference into one conversation of a spillway host. */
export function hostSpiller(host: Host, options: { conversationId: string }): ResultSpiller {
  return async (result) => {
    const ref = await host.spillValue({
      conversationId: options.conversationId,
      tool: result.toolName,
      callId: result.toolCallId,
      value: result.value,
      isError: result.isError,
    });
    return ref === undefined ? undefined : { path: ref.path, format: ref.format, bytes: ref.bytes, rows: ref.rows, columns: ref.columns };
  };
}
