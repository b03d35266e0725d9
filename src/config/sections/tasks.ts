import { Type } from '../../util/type-builder.js';
import { closed, integerKey } from './parts.js';

/** Configuration keys for MCP tasks: long calls a client runs as task-augmented tools/call (2025-11-25). */

export const tasksSchema = Type.Object(
  {
    maxPerSession: integerKey(
      1,
      32,
      'How many tasks one MCP session holds at once (working, or finished with a result not yet fetched); the next is refused with TASK_LIMIT.',
      { maximum: 1000 },
    ),
    maxPerPrincipal: integerKey(1, 128, 'How many tasks one principal holds at once over all its sessions; the next is refused with TASK_LIMIT.', {
      maximum: 10_000,
    }),
    ttlMs: integerKey(
      1000,
      3_600_000,
      'How long a task lives from its creation when the client asks for no ttl: a call still working then is cancelled, a result not fetched by then is forgotten.',
      { maximum: 604_800_000 },
    ),
    maxTtlMs: integerKey(1000, 86_400_000, 'The longest ttl a client may ask for (at most 7 days); a longer one, or null ("unlimited"), is cut to this.', {
      maximum: 604_800_000,
    }),
    pollIntervalMs: integerKey(100, 1000, 'The pollInterval a task suggests to clients that poll tasks/get instead of waiting on notifications/tasks/status.'),
  },
  {
    ...closed,
    default: { maxPerSession: 32, maxPerPrincipal: 128, ttlMs: 3_600_000, maxTtlMs: 86_400_000, pollIntervalMs: 1000 },
    description:
      'Long calls as MCP tasks, for clients that send `task` in tools/call: the call returns a task at once, runs on, and its result is kept until tasks/result fetches it or its ttl ends. Tools that declare themselves long-running list `execution.taskSupport: "optional"`.',
  },
);
