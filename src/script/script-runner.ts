import { availableParallelism } from 'node:os';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { parseJsonSafely } from '../util/safe-json.js';
import { AdmissionGate, defaultQueueWaitMs, type AdmissionGateOptions } from '../util/admission-gate.js';
import type { RunMessage } from './protocol.js';
import type { ScriptBridge, WrittenFile } from './script-bridge.js';
import type { ScriptLimits } from './script-limits.js';
import { ScriptWorkerSlot, workerHeapMb } from './script-worker-slot.js';

/** How long past the interrupt deadline the watchdog waits before it terminates the worker. */
export const watchdogGraceMs = 1000;
/**
 * How workers are reused: up to `maxIdle` kept warm (QuickJS compiled, next
 * WebAssembly instance ready) for `idleMs`, and each replaced after `maxRuns`
 * runs so nothing can accumulate in it.
 */
const workerReuse = { maxIdle: 1, idleMs: 60_000, maxRuns: 100 } as const;

export interface ScriptRunRequest {
  source: string;
  filename: string;
  argsJson: string;
  limits: ScriptLimits;
  bridge: ScriptBridge;
  signal: AbortSignal;
}

export interface ScriptRunResult {
  ok: boolean;
  /** The return value, parsed with parseJsonSafely (ok runs). */
  value?: unknown;
  error?: SpillwayError;
  console: string;
  written: WrittenFile[];
  durationMs: number;
}

export interface ScriptRunnerOptions {
  logger: Logger;
  /** Most scripts running at once (0: one per core). */
  concurrency: () => number;
  /** Most calls waiting for a worker. */
  maxQueue: () => number;
  /** Longest wait for a worker; a call still waiting is refused (SCRIPT_BUSY). Default 30 s. */
  queueWaitMs?: () => number;
  /** The admission gate (a host shares its own, shown in /healthz); absent, one is made from the options above. */
  gate?: AdmissionGate;
}

/** The run_script queue: refusals keep their SCRIPT_BUSY code and name the workers.* caps. */
export function scriptGateOptions(options: Pick<ScriptRunnerOptions, 'concurrency' | 'maxQueue' | 'queueWaitMs'>): AdmissionGateOptions {
  return {
    name: 'scripts',
    noun: 'script',
    code: 'SCRIPT_BUSY',
    keys: 'workers.poolSize, workers.maxQueue',
    limits: () => ({
      running: options.concurrency() || availableParallelism(),
      waiting: options.maxQueue(),
      waitMs: options.queueWaitMs?.() ?? defaultQueueWaitMs,
    }),
  };
}

/**
 * Runs scripts on worker threads, off the main thread: at most `concurrency`
 * at once, a short queue beyond that, one warm worker kept for the next call.
 * A worker that hit a limit or failed is never reused.
 */
export class ScriptRunner {
  private readonly idle: ScriptWorkerSlot[] = [];
  private readonly busy = new Set<ScriptWorkerSlot>();
  private readonly gate: AdmissionGate;
  private nextRunId = 1;
  private closed = false;

  constructor(private readonly options: ScriptRunnerOptions) {
    this.gate = options.gate ?? new AdmissionGate(scriptGateOptions(options));
  }

  async run(request: ScriptRunRequest): Promise<ScriptRunResult> {
    if (this.closed) throw new SpillwayError('TOOL_FAILED', 'The script runner is closed.');
    const endTurn = await this.gate.admit({ signal: request.signal });
    const startedAt = performance.now();
    let slot: ScriptWorkerSlot | undefined;
    try {
      slot = this.takeSlot(request.limits);
      this.busy.add(slot);
      await slot.started();
      const deadline = Date.now() + request.limits.timeoutMs;
      const message: RunMessage = {
        type: 'run',
        runId: this.nextRunId++,
        source: request.source,
        filename: request.filename,
        argsJson: request.argsJson,
        limits: request.limits,
        deadline,
      };
      const { outcome, console } = await slot.run({ message, bridge: request.bridge, killAt: deadline + watchdogGraceMs, signal: request.signal });
      const durationMs = performance.now() - startedAt;
      this.busy.delete(slot);
      this.release(slot, outcome.retire, request.limits);
      slot = undefined;
      const written = request.bridge.written;
      if (!outcome.ok) return { ok: false, error: SpillwayError.fromJSON(outcome.error), console, written, durationMs };
      let value: unknown;
      try {
        // The guest's JSON is untrusted: no "__proto__" or "constructor.prototype" keys reach host objects.
        value = parseJsonSafely(outcome.resultJson);
      } catch (error) {
        return {
          ok: false,
          error: new SpillwayError(
            'SCRIPT_ERROR',
            `The return value was refused: ${(error as Error).message}. Return plain data without "__proto__" or "constructor" keys.`,
          ),
          console,
          written,
          durationMs,
        };
      }
      return { ok: true, value, console, written, durationMs };
    } finally {
      if (slot !== undefined) {
        this.busy.delete(slot);
        this.release(slot, true, request.limits);
      }
      endTurn();
    }
  }

  /** Terminates every worker; calls after this fail. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    await Promise.all(slots.map((slot) => slot.terminate()));
  }

  /** Health facts for /healthz. */
  stats(): { running: number; waiting: number; idleWorkers: number } {
    const { running, waiting } = this.gate.stats();
    return { running, waiting, idleWorkers: this.idle.length };
  }

  private takeSlot(limits: ScriptLimits): ScriptWorkerSlot {
    const heapMb = workerHeapMb(limits);
    while (this.idle.length > 0) {
      const slot = this.idle.pop() as ScriptWorkerSlot;
      if (slot.alive && slot.heapMb === heapMb) return slot;
      void slot.terminate();
    }
    return new ScriptWorkerSlot(limits, this.options.logger);
  }

  private release(slot: ScriptWorkerSlot, retire: boolean, limits: ScriptLimits): void {
    if (retire || this.closed || !slot.alive || slot.runs >= workerReuse.maxRuns || this.idle.length >= workerReuse.maxIdle) {
      void slot.terminate();
      // A retired worker is replaced at once, so the next call does not pay for starting one.
      if (!this.closed && this.idle.length === 0) this.park(new ScriptWorkerSlot(limits, this.options.logger));
      return;
    }
    this.park(slot);
  }

  private park(slot: ScriptWorkerSlot): void {
    this.idle.push(slot);
    slot.park(workerReuse.idleMs, () => {
      const index = this.idle.indexOf(slot);
      if (index !== -1) this.idle.splice(index, 1);
      void slot.terminate();
    });
  }
}
