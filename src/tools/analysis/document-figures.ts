import type { TableSelection } from '../../analysis/selection-sql.js';
import { drawChart } from '../../charts/draw-chart.js';
import { imageSize, maxDocumentImageBytes } from '../../charts/image-size.js';
import type { ToolContext } from '../../host/tool.js';
import type { AnalysisServices } from './analysis-tools.js';

/** A chart or image block of a document spec, as the model wrote it. */
export type FigureBlock =
  | {
      type: 'chart';
      source: string;
      spec: unknown;
      title?: string;
      columns?: TableSelection['columns'];
      sort?: TableSelection['sort'];
      range?: TableSelection['range'];
    }
  | { type: 'image'; path: string; title?: string };

/** A picture ready for a document writer: the bytes and their pixel size. */
export interface Figure {
  type: 'figure';
  data: Uint8Array;
  format: 'png' | 'jpg';
  width: number;
  height: number;
  title?: string;
  /** Where it came from, for notes: the chart's source or the image's path. */
  from: string;
}

/**
 * Turns a chart block into a PNG (the same path as build_chart: rows under
 * query_files' locks, rendered in the chart worker) and an image block into
 * the bytes of a PNG or JPEG read through the sandbox, so the document
 * workers only embed pictures.
 */
export async function resolveFigure(block: FigureBlock, services: AnalysisServices, context: ToolContext): Promise<Figure> {
  if (block.type === 'chart') {
    const selection: TableSelection = { source: block.source };
    if (block.columns !== undefined) selection.columns = block.columns;
    if (block.sort !== undefined) selection.sort = block.sort;
    if (block.range !== undefined) selection.range = block.range;
    const { images } = await drawChart({
      ...services,
      pool: services.charts,
      sandbox: context.sandbox,
      config: context.config,
      spec: block.spec,
      selection,
      signal: context.signal,
    });
    const figure: Figure = { type: 'figure', data: images.png, format: 'png', width: images.width, height: images.height, from: block.source };
    if (block.title !== undefined) figure.title = block.title;
    return figure;
  }
  const { relative, data } = await context.sandbox.readFile(block.path, { maxBytes: maxDocumentImageBytes });
  const size = imageSize(data, relative);
  const figure: Figure = { type: 'figure', data, format: size.type, width: size.width, height: size.height, from: relative };
  if (block.title !== undefined) figure.title = block.title;
  return figure;
}
