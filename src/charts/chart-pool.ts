import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { SpillwayError } from '../errors.js';
import { AdmissionGate } from '../util/admission-gate.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import type { ChartRenderer } from './chart-renderer.js';
import type { RasterImage, SvgRequest } from './rasterize-svg.js';
import type { ChartImages, ChartRequest } from './render-chart.js';

/** Compiled worker modules sit in dist/workers/, two folders up from dist/src/charts/. */
const chartWorker = fileURLToPath(new URL('../../workers/chart.js', import.meta.url));

/** Heap of one chart thread: a spec that builds huge values ends its thread, not the host. */
const workerHeapMb = 512;

/**
 * The chart worker threads (one by default: charts are small and rendering is
 * CPU-bound). A render past its deadline has its thread ended by piscina.
 */
export class ChartPool implements ChartRenderer {
  private pool: Piscina | undefined;
  private closed = false;
  /** Renders admitted (piscina does not count signalled tasks against its maxQueue, so they are counted here). */
  readonly gate: AdmissionGate;

  constructor(private readonly options: { threads: number; maxQueue: number; queueWaitMs?: number; gate?: AdmissionGate }) {
    this.gate =
      options.gate ??
      new AdmissionGate({
        name: 'charts',
        noun: 'chart',
        limits: () => ({ running: options.threads, waiting: options.maxQueue, waitMs: options.queueWaitMs ?? 30_000 }),
      });
  }

  render(request: ChartRequest, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ChartImages> {
    return this.run<ChartImages>(request, options);
  }

  /** An SVG image as a PNG, on the same threads, deadline and heap cap as charts. */
  rasterize(request: SvgRequest, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RasterImage> {
    return this.run<RasterImage>(request, options);
  }

  private async run<R>(request: ChartRequest | SvgRequest, options: { timeoutMs: number; signal?: AbortSignal }): Promise<R> {
    const release = await this.gate.admit(options.signal === undefined ? {} : { signal: options.signal });
    try {
      return await this.runAdmitted<R>(request, options);
    } finally {
      release();
    }
  }

  private async runAdmitted<R>(request: ChartRequest | SvgRequest, options: { timeoutMs: number; signal?: AbortSignal }): Promise<R> {
    if (this.closed) throw new SpillwayError('CHART_FAILED', 'The chart workers are shut down (the host is closing).');
    const pool = (this.pool ??= new Piscina({
      filename: chartWorker,
      maxThreads: this.options.threads,
      minThreads: 0,
      idleTimeout: 30_000,
      maxQueue: this.options.maxQueue,
      resourceLimits: { maxOldGenerationSizeMb: workerHeapMb },
    }));
    const deadline = deadlineSignal(options.signal, options.timeoutMs);
    const signal = deadline.signal;
    try {
      const reply = (await pool.run(request, { signal })) as { ok: true; result: R } | { ok: false; error: { code: never; message: string } };
      if (!reply.ok) throw SpillwayError.fromJSON(reply.error);
      return reply.result;
    } catch (error) {
      if (SpillwayError.is(error)) throw error;
      if (deadline.timedOut()) {
        throw new SpillwayError(
          'CHART_FAILED',
          `Rendering took longer than charts.timeoutMs (${options.timeoutMs} ms) and was stopped. Simplify the spec or aggregate the data first.`,
          {
            limit: 'charts.timeoutMs',
            value: options.timeoutMs,
          },
        );
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new SpillwayError('CHART_FAILED', `The chart worker failed: ${message}`, { message });
    } finally {
      deadline.done();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close({ force: true });
  }
}
