/**
 * Vega-Lite → Vega → SVG (vega's headless renderer) → PNG (resvg). Runs inside
 * the chart process; the spec is checked (check-spec.ts) as in the host, and
 * what Vega-Lite compiled is checked too before Vega runs it.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { SpillwayError } from '../errors.js';
import { formatBytes } from '../util/format.js';
import { maxSvgChars } from './chart-limits.js';
import { checkCompiledSpec } from './check-compiled-spec.js';
import { checkChartSpec } from './check-spec.js';
import { rasterizeChecked } from './raster-png.js';
import { sanitizeSvg } from './sanitize-svg.js';
import { capBins } from './vega-guards.js';

export interface ChartRequest {
  spec: Record<string, unknown>;
  rows: Record<string, unknown>[];
  maxMarks: number;
  /** PNG pixels per SVG unit. */
  scale: number;
  /** charts.maxPixels: the PNG's area at most (absent in jobs of an older replica: the default). */
  maxPixels?: number;
}

export interface ChartImages {
  svg: string;
  png: Uint8Array;
  width: number;
  height: number;
  marks: number;
}

const defaultWidth = 640;
const defaultHeight = 360;
export const defaultMaxPixels = 4096 * 4096;

capBins();

/** The spec with the rows bound and a readable default size and background. */
export function bindRows(spec: Record<string, unknown>, rows: Record<string, unknown>[]): TopLevelSpec {
  const bound: Record<string, unknown> = { ...spec, data: { values: rows } };
  // A single view without a size gets one; composed views (facet, concat, repeat) size their own cells.
  const single = 'mark' in spec || 'layer' in spec;
  if (single && bound.width === undefined) bound.width = defaultWidth;
  if (single && bound.height === undefined) bound.height = defaultHeight;
  bound.background ??= 'white';
  return bound as unknown as TopLevelSpec;
}

/** Counts the items the scenegraph holds (a bar, a point, a line vertex set, a label). */
function countMarks(node: unknown): number {
  if (node === null || typeof node !== 'object') return 0;
  const items = (node as { items?: unknown[] }).items;
  if (!Array.isArray(items)) return 0;
  let count = (node as { marktype?: string }).marktype !== undefined && (node as { marktype?: string }).marktype !== 'group' ? items.length : 0;
  for (const item of items) count += countMarks(item);
  return count;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function compileSpec(request: ChartRequest): vega.Spec {
  try {
    return compile(bindRows(request.spec, request.rows)).spec;
  } catch (error) {
    throw new SpillwayError('CHART_SPEC_INVALID', `Vega-Lite could not compile the spec: ${messageOf(error)}`, { message: messageOf(error) });
  }
}

/** Parses and runs the Vega spec headless; the first error Vega logs (a refused bin count among them) fails the chart. */
async function runView(spec: vega.Spec): Promise<vega.View> {
  let logged: unknown;
  const logger = vega.logger(vega.Error);
  logger.error = (...args: readonly unknown[]) => {
    logged ??= args[0];
    return logger;
  };
  let view: vega.View | undefined;
  try {
    // No loader that reaches the network or the disk: the spec was checked to need none.
    const loader = vega.loader({ mode: 'http' });
    loader.load = () => Promise.reject(new Error('charts load nothing'));
    loader.sanitize = () => Promise.reject(new Error('charts load nothing'));
    view = new vega.View(vega.parse(spec), { renderer: 'none', loader, logger });
    await view.runAsync();
  } catch (error) {
    logged ??= error;
  }
  if (logged === undefined && view !== undefined) return view;
  view?.finalize();
  if (SpillwayError.is(logged)) throw logged;
  throw new SpillwayError('CHART_FAILED', `Vega could not render the chart: ${messageOf(logged)}`, { message: messageOf(logged) });
}

export async function renderChart(request: ChartRequest): Promise<ChartImages> {
  const maxPixels = request.maxPixels ?? defaultMaxPixels;
  // Checked again here: a fleet's job comes from Redis, not straight from the replica that checked it.
  checkChartSpec(request.spec, { maxPixels, scale: request.scale });
  const vegaSpec = compileSpec(request);
  checkCompiledSpec(vegaSpec);
  const view = await runView(vegaSpec);
  let svg: string;
  try {
    const marks = countMarks((view.scenegraph() as unknown as { root: unknown }).root);
    if (marks > request.maxMarks) {
      throw new SpillwayError(
        'CHART_TOO_LARGE',
        `The chart would draw ${marks} marks; charts.maxMarks allows ${request.maxMarks}. Aggregate first (query_files or query_sql with GROUP BY), or bin the values.`,
        { marks, limit: 'charts.maxMarks', value: request.maxMarks },
      );
    }
    const drawn = await view.toSVG();
    if (drawn.length > maxSvgChars) {
      throw new SpillwayError(
        'CHART_TOO_LARGE',
        `The chart's SVG would be ${formatBytes(drawn.length)}; at most ${formatBytes(maxSvgChars)} is drawn. Shorten the text the spec computes (labels, descriptions, tooltips) or draw fewer marks.`,
        { svgChars: drawn.length, limit: maxSvgChars },
      );
    }
    svg = sanitizeSvg(drawn);
    const image = rasterizeChecked(svg, { scale: request.scale, maxPixels, limitKey: 'charts.maxPixels' });
    return { svg, ...image, marks };
  } catch (error) {
    if (SpillwayError.is(error)) throw error;
    throw new SpillwayError('CHART_FAILED', `The chart could not be drawn: ${messageOf(error)}`, { message: messageOf(error) });
  } finally {
    view.finalize();
  }
}
