import { SpillwayError } from '../errors.js';
import { AdmissionGate, poolLimits } from '../util/admission-gate.js';
import type { ChartRenderer, RenderOptions } from './chart-renderer.js';
import type { ChartTask } from './chart-protocol.js';
import { ChartProcess } from './chart-process.js';
import type { RasterImage, SvgRequest } from './rasterize-svg.js';
import type { ChartImages, ChartRequest } from './render-chart.js';

/** charts.memoryBytes' default: the heap of one chart process. */
export const defaultChartMemoryBytes = 1024 * 1024 * 1024;

export interface ChartPoolOptions {
  /** Chart processes rendering at once. */
  threads: number;
  /** Renders waiting at most; more are refused (BUSY). */
  maxQueue: number;
  queueWaitMs?: number;
  /** The admission gate (a host shares its own, shown in /healthz); absent, one is made from the caps above. */
  gate?: AdmissionGate;
  /** The heap cap of a chart process (charts.memoryBytes), read when a process starts. */
  memoryBytes?: () => number;
  /** A process whose RSS is past this after a call is ended, so the memory goes back; default half its heap cap, at least 384 MiB. */
  recycleRssBytes?: number;
}

/**
 * Renders charts and rasterizes SVG images in child processes
 * (workers/chart.ts), each with a capped heap and a deadline: a chart that
 * runs out of memory, crashes, or runs past charts.timeoutMs fails that call
 * with a coded error, and the next call gets a fresh process. A process that
 * answered is kept warm for the next call (loading Vega takes a while) unless
 * it grew past recycleRssBytes.
 */
export class ChartPool implements ChartRenderer {
  private readonly idle: ChartProcess[] = [];
  private readonly busy = new Set<ChartProcess>();
  private closed = false;
  /** Renders admitted (running and waiting are capped here, before any process is asked). */
  readonly gate: AdmissionGate;

  constructor(private readonly options: ChartPoolOptions) {
    this.gate = options.gate ?? new AdmissionGate({ name: 'charts', noun: 'chart', limits: () => poolLimits(options.threads, options) });
  }

  render(request: ChartRequest, options: RenderOptions): Promise<ChartImages> {
    return this.run<ChartImages>({ type: 'chart', request }, options);
  }

  /** An SVG image as a PNG, in the same processes, deadline and memory cap as charts. */
  rasterize(request: SvgRequest, options: RenderOptions): Promise<RasterImage> {
    return this.run<RasterImage>({ type: 'raster', request }, options);
  }

  /** The process ids of the chart processes alive now (for tests and diagnostics). */
  processIds(): number[] {
    return [...this.idle, ...this.busy].flatMap((child) => (child.process.pid === undefined ? [] : [child.process.pid]));
  }

  private async run<R>(task: ChartTask, options: RenderOptions): Promise<R> {
    const release = await this.gate.admit(options.signal === undefined ? {} : { signal: options.signal });
    try {
      if (this.closed) throw new SpillwayError('CHART_FAILED', 'The chart processes are shut down (the host is closing).');
      const memoryBytes = this.options.memoryBytes?.() ?? defaultChartMemoryBytes;
      const child = this.take(memoryBytes);
      this.busy.add(child);
      try {
        return await child.run<R>(task, { ...options, memoryBytes });
      } finally {
        this.busy.delete(child);
        // A refusal from a live child leaves it usable; a dead or stopped one is replaced next time.
        if (child.alive) this.giveBack(child, memoryBytes);
      }
    } finally {
      release();
    }
  }

  private take(memoryBytes: number): ChartProcess {
    for (let child = this.idle.pop(); child !== undefined; child = this.idle.pop()) {
      if (child.alive && child.memoryBytes === memoryBytes) return child;
      // charts.memoryBytes changed (a configuration reload): the next process starts with the new cap.
      void child.kill('its memory cap changed');
    }
    return new ChartProcess(memoryBytes);
  }

  private giveBack(child: ChartProcess, memoryBytes: number): void {
    const bound = this.options.recycleRssBytes ?? Math.max(384 * 1024 * 1024, memoryBytes / 2);
    if (this.closed || child.lastRss > bound || this.idle.length >= this.options.threads) {
      void child.kill('it was retired');
      return;
    }
    child.idle();
    this.idle.push(child);
  }

  /** Ends every chart process, idle or running (a running call fails with CHART_FAILED), and resolves once they are gone. */
  async close(): Promise<void> {
    this.closed = true;
    const children = [...this.idle.splice(0), ...this.busy];
    await Promise.all(children.map((child) => child.kill('the host is closing')));
  }
}
