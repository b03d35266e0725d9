import type { ChartRenderer, RenderOptions } from '../charts/chart-renderer.js';
import type { RasterImage, SvgRequest } from '../charts/rasterize-svg.js';
import type { ChartImages, ChartRequest } from '../charts/render-chart.js';
import type { AdmissionGate } from '../util/admission-gate.js';
import type { FileJobQueue } from './file-job-queue.js';

/**
 * Charts of a fleet: each render (build_chart, a chart block of a document,
 * an SVG image block made a PNG) is a job in the file-job queue, rendered by
 * whichever worker takes it. The rows travel in the job (at most
 * charts.maxRows, read on the replica under query_files' locks); the PNG comes
 * back as base64. The "charts" queue of /healthz caps this replica's calls.
 */
export class ChartJobs implements ChartRenderer {
  constructor(
    private readonly queue: FileJobQueue,
    private readonly gate: AdmissionGate,
  ) {}

  render(request: ChartRequest, options: RenderOptions): Promise<ChartImages> {
    return this.submit<ChartImages>('chart', request, options);
  }

  rasterize(request: SvgRequest, options: RenderOptions): Promise<RasterImage> {
    return this.submit<RasterImage>('raster', request, options);
  }

  /** The queue belongs to the host's file jobs, which close it. */
  async close(): Promise<void> {}

  private async submit<R>(kind: 'chart' | 'raster', request: object, options: RenderOptions): Promise<R> {
    const signal = options.signal === undefined ? {} : { signal: options.signal };
    const release = await this.gate.admit(signal);
    try {
      return await this.queue.submit<R>(kind, { request, timeoutMs: options.timeoutMs }, signal);
    } finally {
      release();
    }
  }
}
