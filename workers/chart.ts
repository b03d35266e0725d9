/** Piscina task: one chart (Vega-Lite → SVG → PNG), off the main thread so a slow spec cannot stall other calls. */
import { renderChart, type ChartImages, type ChartRequest } from '../src/charts/render-chart.js';
import { rasterizeSvg, type RasterImage, type SvgRequest } from '../src/charts/rasterize-svg.js';
import { toSpillwayError, type SerializedError } from '../src/errors.js';

export type ChartReply = { ok: true; result: ChartImages | RasterImage } | { ok: false; error: SerializedError };

export default async function chart(task: ChartRequest | SvgRequest): Promise<ChartReply> {
  try {
    // An SVG image block of a document is rasterized here too: untrusted input, same deadline and heap cap.
    if ('svg' in task) return { ok: true, result: rasterizeSvg(task) };
    return { ok: true, result: await renderChart(task) };
  } catch (error) {
    // Classes do not survive the thread boundary: post the plain shape.
    return { ok: false, error: toSpillwayError(error, 'CHART_FAILED').toJSON() };
  }
}
