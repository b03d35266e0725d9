/**
 * The chart process (forked by src/charts/chart-pool.ts): Vega-Lite → SVG →
 * PNG, and SVG images → PNG, one task at a time, in a process of its own so
 * a chart that runs out of memory (V8's heap cap, or resvg's native buffers)
 * or past its deadline ends this process, never the host.
 *
 * Protocol (src/charts/chart-protocol.ts): the child says `ready` once Vega is
 * loaded; each task gets one `result` or `error`, with the process's RSS so the
 * parent can retire a child that kept memory. It exits when the parent goes.
 */
import type { ChartReply, ChartTask } from '../src/charts/chart-protocol.js';
import { rasterizeSvg } from '../src/charts/rasterize-svg.js';
import { renderChart } from '../src/charts/render-chart.js';
import { toSpillwayError } from '../src/errors.js';

function send(message: ChartReply): void {
  process.send?.(message);
}

async function run(task: ChartTask): Promise<ChartReply> {
  try {
    // An SVG image block of a document is rasterized here too: untrusted input, same deadline and memory cap.
    const result = task.type === 'raster' ? rasterizeSvg(task.request) : await renderChart(task.request);
    return { type: 'result', result, rss: process.memoryUsage().rss };
  } catch (error) {
    // Classes do not survive the process boundary: post the plain shape.
    return { type: 'error', error: toSpillwayError(error, 'CHART_FAILED').toJSON(), rss: process.memoryUsage().rss };
  }
}

process.on('message', (task: ChartTask) => {
  void run(task).then(send);
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
