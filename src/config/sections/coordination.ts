import { Type } from '../../util/type-builder.js';
import { closed, integerKey } from './parts.js';

/** Configuration keys for a fleet: replicas that share a sandbox volume and a Redis. */

export const coordinationSchema = Type.Object(
  {
    redis: Type.Optional(
      Type.Object(
        {
          url: Type.String({
            pattern: '^rediss?://',
            description: 'Redis URL (redis:// or rediss://, password in the URL if any). spillway refuses to start when it cannot reach it.',
          }),
          keyPrefix: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'Put in front of every key spillway writes (default "spillway:"); give each fleet sharing one Redis its own.',
            }),
          ),
        },
        {
          ...closed,
          description: 'The Redis the replicas share. Absent: no Redis; this process coordinates itself (pid file sweep lock, its own spill numbers).',
        },
      ),
    ),
    sweepLeaseMs: integerKey(
      1000,
      60_000,
      "With Redis: how long the fleet's sweep lock outlives a replica that died holding it (the holder renews it every third of this while it sweeps).",
    ),
    jobs: Type.Object(
      {
        onReplicas: Type.Boolean({
          default: true,
          description:
            'With Redis: replicas (`spillway serve`) also take file-building jobs on their own worker threads. Set false when `spillway worker` nodes should build every file and replicas only serve.',
        }),
        lockMs: integerKey(
          1000,
          30_000,
          'With Redis: how long a job stays with a worker that stops answering (killed, frozen) before another worker takes it again. Workers renew it every half of this while they build.',
        ),
        retries: integerKey(
          0,
          2,
          'With Redis: how many times a job whose worker died is taken again by another worker before the call fails (WORKER_FAILED).',
          { maximum: 10 },
        ),
      },
      {
        ...closed,
        default: { onReplicas: true, lockMs: 30_000, retries: 2 },
        description:
          'File-building jobs (exports, documents, tables drawn for the answer) when Redis coordinates a fleet: they go through a BullMQ queue and are built by `spillway worker` nodes (and replicas, unless onReplicas is false) on workers.poolSize threads each.',
      },
    ),
  },
  {
    ...closed,
    default: { sweepLeaseMs: 60_000, jobs: { onReplicas: true, lockMs: 30_000, retries: 2 } },
    description:
      'Replicas sharing one sandbox volume coordinate through Redis: the one sweep at a time (a lease lock), spill numbers within a conversation, the disk-quota totals, the expiry log (PATH_EXPIRED answers) and the file-building job queue. Without `redis`, one process coordinates itself as before.',
  },
);
