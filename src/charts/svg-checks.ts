/**
 * What an SVG from the sandbox must be before anything renders it: an SVG by
 * its content, and self-contained. Pure functions, so the tool layer can sniff
 * a file without loading the renderer (which lives in the chart worker).
 */
import { SpillwayError } from '../errors.js';

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
