/** SVG → PNG with resvg, its pixel count checked before resvg allocates the image (a native buffer no heap cap sees). */
import { Resvg } from '@resvg/resvg-js';
import { SpillwayError } from '../errors.js';
import { maxSidePixels } from './chart-limits.js';

const fontOptions = { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' };

export interface RasterOptions {
  /** PNG pixels per SVG unit. */
  scale: number;
  /** The PNG's area at most, in pixels. */
  maxPixels: number;
  /** The config key that sets maxPixels, for the refusal. */
  limitKey: string;
}

/** The SVG's own size (resvg's parse), or a CHART_FAILED when resvg cannot read it. */
export function svgTree(svg: string, zoom: number): Resvg {
  try {
    return new Resvg(svg, { fitTo: { mode: 'zoom', value: zoom }, font: fontOptions });
  } catch (error) {
    throw new SpillwayError('CHART_FAILED', `The chart's SVG could not be read for the PNG: ${(error as Error).message}`, {
      message: (error as Error).message,
    });
  }
}

export function rasterizeChecked(svg: string, options: RasterOptions): { png: Uint8Array; width: number; height: number } {
  const tree = svgTree(svg, options.scale);
  const width = Math.ceil(tree.width * options.scale);
  const height = Math.ceil(tree.height * options.scale);
  if (!(width * height <= options.maxPixels && width <= maxSidePixels && height <= maxSidePixels)) {
    throw new SpillwayError(
      'CHART_TOO_LARGE',
      `The chart is ${width}×${height} pixels at charts.scale ${options.scale}; ${options.limitKey} allows ${options.maxPixels} pixels (and ${maxSidePixels} a side). Make it smaller (width, height, padding) or facet less.`,
      { width, height, limit: options.limitKey, value: options.maxPixels },
    );
  }
  try {
    const image = tree.render();
    return { png: image.asPng(), width: image.width, height: image.height };
  } catch (error) {
    throw new SpillwayError('CHART_FAILED', `The PNG could not be drawn: ${(error as Error).message}`, { message: (error as Error).message });
  }
}
