import { drawChart } from '../../charts/draw-chart.js';
import { imageSize, maxDocumentImageBytes } from '../../charts/image-size.js';
import { looksLikeSvg } from '../../charts/svg-checks.js';
import type { DocumentBlock, FigureBlock } from '../../files/formats/document-spec.js';
import type { ToolContext } from '../../host/tool.js';
import type { AnalysisServices } from './analysis-tools.js';

/**
 * Turns a chart block into a PNG (the same path as build_chart: rows under
 * query_files' locks, rendered in the chart worker) and an image block into
 * the bytes of a PNG or JPEG read through the sandbox (an SVG is rasterized
 * to PNG in the chart worker), so the document workers only embed pictures.
 */
/** Longest side of a rasterized SVG: sharp on a full-width page or slide, small enough to embed. */
const svgMaxSide = 2000;

export async function resolveFigure(
  block: Extract<DocumentBlock, { type: 'chart' | 'image' }>,
  services: AnalysisServices,
  context: ToolContext,
): Promise<FigureBlock> {
  let figure: FigureBlock;
  if (block.type === 'chart') {
    const selection = { source: block.source, ...block.selection };
    const { images } = await drawChart({
      engine: services.engine,
      pool: services.charts,
      sandbox: context.sandbox,
      config: context.config,
      spec: block.spec,
      selection,
      signal: context.signal,
    });
    figure = { type: 'figure', data: images.png, format: 'png', width: images.width, height: images.height, from: block.source };
  } else {
    const { relative, data } = await context.sandbox.readFile(block.path, { maxBytes: maxDocumentImageBytes });
    if (looksLikeSvg(data)) {
      const svg = Buffer.from(data).toString('utf8');
      const options = { timeoutMs: context.config.charts.timeoutMs, signal: context.signal };
      const image = await services.charts.rasterize({ svg, path: relative, maxSide: svgMaxSide }, options);
      figure = { type: 'figure', data: image.png, format: 'png', width: image.width, height: image.height, from: relative };
    } else {
      const size = imageSize(data, relative);
      figure = { type: 'figure', data, format: size.type, width: size.width, height: size.height, from: relative };
    }
  }
  if (block.title !== undefined) figure.title = block.title;
  return figure;
}
