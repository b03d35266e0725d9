/** Piscina task: one chart (Vega-Lite → SVG → PNG), off the main thread so a slow spec cannot stall other calls. */
import { renderChart, type ChartImages, type ChartRequest } from '../src/charts/render-chart.js';
import { toSpillwayError, type SerializedError } from '../src/errors.js';

export type ChartReply = { ok: true; result: ChartImages } | { ok: false; error: SerializedError };

export default async function chart(task: ChartRequest): Promise<ChartReply> {
  try {
    return { ok: true, result: await renderChart(task) };
  } catch (error) {
    // Classes do not survive the thread boundary: post the plain shape.
    return { ok: false, error: toSpillwayError(error, 'CHART_FAILED').toJSON() };
  }
}
