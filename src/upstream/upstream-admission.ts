import type { Config } from '../config/schema.js';
import type { ToolContext } from '../host/tool.js';
import type { AdmissionBoard } from '../util/admission-board.js';
import type { AdmissionGate, GateLimits } from '../util/admission-gate.js';

/** The caps of one upstream: its own keys in upstreams.NAME, else the upstream.* defaults. */
export function upstreamLimits(config: Config, upstream: string): GateLimits {
  const own = Object.hasOwn(config.upstreams, upstream) ? config.upstreams[upstream] : undefined;
  return {
    running: own?.maxConcurrent ?? config.upstream.maxConcurrent,
    waiting: own?.maxWaiting ?? config.upstream.maxWaiting,
    waitMs: config.server.queueWaitMs,
  };
}

/** The configuration each upstream gate reads its caps from: the latest call's, so a reload applies to the next call. */
const latestConfig = new WeakMap<AdmissionGate, { config: Config }>();

/** The queue of one upstream ("upstream:NAME"), its caps read from `config` (the latest given). */
export function upstreamGate(queues: AdmissionBoard, upstream: string, config: Config): AdmissionGate {
  const holder = { config };
  const gate = queues.gate({
    name: `upstream:${upstream}`,
    noun: `call to ${upstream}`,
    plural: `calls to ${upstream}`,
    keys: `upstreams.${upstream}.maxConcurrent/maxWaiting or upstream.maxConcurrent/maxWaiting`,
    limits: () => upstreamLimits(holder.config, upstream),
  });
  const latest = latestConfig.get(gate);
  if (latest === undefined) latestConfig.set(gate, holder);
  else latest.config = config;
  return gate;
}

/**
 * Runs one call to an upstream once it has a turn in that upstream's queue
 * ("upstream:NAME" in /healthz): a slow or frozen upstream holds at most its
 * own callers, and a call past its caps is refused at once with BUSY.
 */
export async function admitUpstreamCall<T>(context: ToolContext, upstream: string, call: () => Promise<T>): Promise<T> {
  return await upstreamGate(context.queues, upstream, context.config).run(call, { signal: context.signal });
}
