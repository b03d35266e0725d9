/**
 * An SVG image from the sandbox → PNG (resvg), inside the chart worker, for
 * document image blocks: DOCX and PPTX embed pictures, and a PNG renders the
 * same in every office suite.
 */
import { Resvg } from '@resvg/resvg-js';
import { SpillwayError } from '../errors.js';

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

/** True when the bytes are an SVG document (by content, never by name). */
export function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('utf8');
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head);
}

/**
 * Refuses references that would load anything besides the SVG itself: files
 * next to it, URLs, entities. Internal references (#id) and data: URIs stay.
 */
export function checkSvgReferences(svg: string, path: string): void {
  const external = /(?:xlink:)?href\s*=\s*["'](?!#|data:)([^"']*)["']/i.exec(svg) ?? /url\(\s*["']?(?!#|data:)([^)"']+)/i.exec(svg);
  if (external !== null || /<!ENTITY/i.test(svg)) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `${path} refers to other files or URLs (${external?.[1] ?? 'an XML entity'}); an SVG image block must be self-contained.`,
      {
        path,
      },
    );
  }
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
  const image = sized.render();
  return { png: image.asPng(), width: image.width, height: image.height };
}
