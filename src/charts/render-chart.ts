/**
 * Vega-Lite → Vega → SVG (vega's headless renderer) → PNG (resvg). Runs inside
 * the chart worker; the caller has checked the spec (check-spec.ts).
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { SpillwayError } from '../errors.js';

export interface ChartRequest {
  spec: Record<string, unknown>;
  rows: Record<string, unknown>[];
  maxMarks: number;
  /** PNG pixels per SVG unit. */
  scale: number;
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

export async function renderChart(request: ChartRequest): Promise<ChartImages> {
  let vegaSpec: vega.Spec;
  try {
    vegaSpec = compile(bindRows(request.spec, request.rows)).spec;
  } catch (error) {
    throw new SpillwayError('CHART_SPEC_INVALID', `Vega-Lite could not compile the spec: ${(error as Error).message}`, { message: (error as Error).message });
  }
  let view: vega.View;
  try {
    // No loader that reaches the network or the disk: the spec was checked to need none.
    const loader = vega.loader({ mode: 'http' });
    loader.load = () => Promise.reject(new Error('charts load nothing'));
    loader.sanitize = () => Promise.reject(new Error('charts load nothing'));
    view = new vega.View(vega.parse(vegaSpec), { renderer: 'none', loader });
    await view.runAsync();
  } catch (error) {
    throw new SpillwayError('CHART_FAILED', `Vega could not render the chart: ${(error as Error).message}`, { message: (error as Error).message });
  }
  const marks = countMarks((view.scenegraph() as unknown as { root: unknown }).root);
  if (marks > request.maxMarks) {
    view.finalize();
    throw new SpillwayError(
      'CHART_TOO_LARGE',
      `The chart would draw ${marks} marks; charts.maxMarks allows ${request.maxMarks}. Aggregate first (query_files or query_sql with GROUP BY), or bin the values.`,
      { marks, limit: 'charts.maxMarks', value: request.maxMarks },
    );
  }
  const svg = await view.toSVG();
  view.finalize();
  const image = new Resvg(svg, { fitTo: { mode: 'zoom', value: request.scale }, font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render();
  return { svg, png: image.asPng(), width: image.width, height: image.height, marks };
}
