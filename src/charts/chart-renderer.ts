import type { RasterImage, SvgRequest } from './rasterize-svg.js';
import type { ChartImages, ChartRequest } from './render-chart.js';

export interface RenderOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * What renders charts and rasterizes SVG images: this process's chart thread
 * (ChartPool), or, when Redis coordinates a fleet, the job queue whose workers
 * render them (src/jobs/chart-jobs.ts).
 */
export interface ChartRenderer {
  render(request: ChartRequest, options: RenderOptions): Promise<ChartImages>;
  rasterize(request: SvgRequest, options: RenderOptions): Promise<RasterImage>;
  close(): Promise<void>;
}
