/**
 * An SVG image from the sandbox → PNG (resvg), inside the chart process, for
 * document image blocks: DOCX and PPTX embed pictures, and a PNG renders the
 * same in every office suite.
 */
import { Resvg } from '@resvg/resvg-js';
import { SpillwayError } from '../errors.js';
import { checkSvgReferences } from './svg-checks.js';

export interface SvgRequest {
  svg: string;
  /** The path the model gave, for messages. */
  path: string;
  /** Longest side of the PNG, in pixels. */
  maxSide: number;
}

export interface RasterImage {
  png: Uint8Array;
  width: number;
  height: number;
}

/** Renders the SVG to a PNG whose longest side is at most maxSide pixels. */
export function rasterizeSvg(request: SvgRequest): RasterImage {
  checkSvgReferences(request.svg, request.path);
  let resvg: Resvg;
  try {
    resvg = new Resvg(request.svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  } catch (error) {
    throw new SpillwayError('INVALID_ARGUMENTS', `${request.path} is not a usable SVG image: ${(error as Error).message}`, { path: request.path });
  }
  const { width, height } = resvg;
  if (!(width > 0 && height > 0)) throw new SpillwayError('INVALID_ARGUMENTS', `${request.path} is an SVG without a size.`, { path: request.path });
  const scale = Math.min(request.maxSide / Math.max(width, height), 2);
  const sized = new Resvg(request.svg, {
    fitTo: { mode: 'zoom', value: scale },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  });
  try {
    const image = sized.render();
    return { png: image.asPng(), width: image.width, height: image.height };
  } catch (error) {
    throw new SpillwayError('CHART_FAILED', `${request.path} could not be drawn as a PNG: ${(error as Error).message}`, {
      path: request.path,
      message: (error as Error).message,
    });
  }
}
