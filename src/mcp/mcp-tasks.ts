import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
  type TaskMetadata,
} from '@modelcontextprotocol/sdk/types.js';
import { isRetryable, SpillwayError, toSpillwayError } from '../errors.js';
import { errorMetaKey, toErrorMeta } from '../host/structured-result.js';
import type { TaskBoard, TaskOwner } from './task-board.js';

/** What a server declares: task-augmented tools/call, tasks/list and tasks/cancel (the 2025-11-25 spec). */
export const tasksCapability = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

/** JSON-RPC codes: an unknown or finished task is a bad parameter (as the spec says), a tool without task support an unknown method for it. */
const jsonRpcCodes: Partial<Record<SpillwayError['code'], number>> = {
  TASK_NOT_FOUND: -32602,
  TASK_FINISHED: -32602,
  TASK_NOT_SUPPORTED: -32601,
  TOOL_NOT_FOUND: -32602,
  CONVERSATION_INVALID: -32602,
  PRINCIPAL_INVALID: -32602,
};

/** A refused tasks/* request (or task-augmented call) as a JSON-RPC error; `data` is `{code, details, retryable}` like the HTTP front's errors. */
export function taskError(error: unknown): McpError {
  const cause = toSpillwayError(error);
  return new McpError(jsonRpcCodes[cause.code] ?? -32000, cause.message, {
    code: cause.code,
    details: cause.details ?? {},
    retryable: isRetryable(cause.code),
  });
}

export interface McpTasks {
  /**
   * tools/call with `task`: creates the task (TASK_LIMIT over a cap), runs
   * `run` with the task's own signal after the request has returned, and
   * answers the CreateTaskResult at once.
   */
  start(principal: string, params: TaskMetadata, run: (signal: AbortSignal) => Promise<CallToolResult>): CreateTaskResult;
  /** The session closed: its tasks are cancelled and forgotten. */
  close(): void;
}

/**
 * tasks/get, tasks/result, tasks/list and tasks/cancel for one session, over
 * a board the sessions of a front share (for the per-principal cap). Each
 * status change goes to the session as notifications/tasks/status.
 */
export function installTasks(server: Server, board: TaskBoard, principalOf: (meta: Record<string, unknown> | undefined, extra: unknown) => string): McpTasks {
  const session = randomUUID();
  const ownerOf = (meta: Record<string, unknown> | undefined, extra: unknown): TaskOwner => {
    try {
      return { session, principal: principalOf(meta, extra) };
    } catch (error) {
      throw taskError(error);
    }
  };
  const guarded = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw taskError(error);
    }
  };

  server.setRequestHandler(GetTaskRequestSchema, (request, extra) => {
    const owner = ownerOf(request.params._meta, extra);
    return guarded(() => board.get(owner, request.params.taskId));
  });
  server.setRequestHandler(ListTasksRequestSchema, (request, extra) => {
    const owner = ownerOf(request.params?._meta, extra);
    return { tasks: board.list(owner) };
  });
  server.setRequestHandler(CancelTaskRequestSchema, (request, extra) => {
    const owner = ownerOf(request.params._meta, extra);
    return guarded(() => board.cancel(owner, request.params.taskId));
  });
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const owner = ownerOf(request.params._meta, extra);
    const taskId = request.params.taskId;
    let result: CallToolResult;
    try {
      result = await board.result(owner, taskId, extra.signal);
    } catch (error) {
      throw taskError(error);
    }
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });

  return {
    start(principal, params, run) {
      const { task, signal } = guarded(() =>
        board.create({ session, principal }, params.ttl, (changed) => {
          server.notification({ method: 'notifications/tasks/status', params: changed }).catch(() => undefined);
        }),
      );
      // After this request's answer: the work must not run on the request's signal, which ends with it.
      setImmediate(() => {
        run(signal).then(
          (result) => board.finish(task.taskId, result),
          (error: unknown) => board.finish(task.taskId, failedResult(toSpillwayError(error))),
        );
      });
      return { task };
    },
    close() {
      board.closeSession(session);
    },
  };
}

function failedResult(error: SpillwayError): CallToolResult {
  return { content: [{ type: 'text', text: error.message }], isError: true, _meta: { [errorMetaKey]: toErrorMeta(error.toJSON()) } };
}
