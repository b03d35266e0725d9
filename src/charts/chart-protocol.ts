/** Messages between the host (chart-process.ts) and the chart process (workers/chart.ts), over IPC with advanced serialization. */
import type { SerializedError } from '../errors.js';
import type { RasterImage, SvgRequest } from './rasterize-svg.js';
import type { ChartImages, ChartRequest } from './render-chart.js';

export type ChartTask = { type: 'chart'; request: ChartRequest } | { type: 'raster'; request: SvgRequest };

/** `ready` once Vega is loaded; then one `result` or `error` per task, with the child's RSS after it. */
export type ChartReply =
  { type: 'ready' } | { type: 'result'; result: ChartImages | RasterImage; rss: number } | { type: 'error'; error: SerializedError; rss: number };
