import { SpillwayError } from '../../errors.js';

export interface ImageFacts {
  type: 'png' | 'jpg' | 'svg';
  /** Pixels (SVG: user units of its width/height or viewBox). */
  width: number;
  height: number;
}

/** Images larger than this are refused: a document is for reading, not an image archive. */
export const maxImageBytes = 10 * 1024 * 1024;
const maxPixels = 40_000_000;

function refuse(path: string, why: string): SpillwayError {
  return new SpillwayError(
    'IMAGE_INVALID',
    `${path} ${why}. An image block takes a PNG, JPEG or SVG file from the sandbox (e.g. outputs/chart.png) of at most ${maxImageBytes / 1024 / 1024} MiB.`,
    { path },
  );
}

function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] ?? 0;
    const length = bytes.readUInt16BE(at + 2);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return undefined;
}

function svgLength(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*([\d.]+)\s*(px)?\s*$/.exec(value);
  return match === null ? undefined : Number(match[1]);
}

function svgSize(text: string): { width: number; height: number } | undefined {
  const root = /<svg\b[^>]*>/i.exec(text)?.[0];
  if (root === undefined) return undefined;
  const attribute = (name: string) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(root)?.[1];
  const box = attribute('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  const width = svgLength(attribute('width')) ?? box?.[2];
  const height = svgLength(attribute('height')) ?? box?.[3];
  if (width === undefined || height === undefined || !(width > 0) || !(height > 0)) return undefined;
  return { width, height };
}

/** What kind of image the bytes are and how big, from the bytes (never the file name); refuses anything else. */
export function imageFacts(bytes: Buffer, path: string): ImageFacts {
  if (bytes.length > maxImageBytes) throw refuse(path, `is ${Math.ceil(bytes.length / 1024 / 1024)} MiB, too large for a document`);
  let facts: ImageFacts | undefined;
  if (bytes.length > 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    facts = { type: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  } else if (bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    const size = jpegSize(bytes);
    if (size !== undefined) facts = { type: 'jpg', ...size };
  } else {
    const head = bytes.toString('utf8', 0, Math.min(bytes.length, 4096));
    if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>]*>\s*)?<svg\b/i.test(head)) {
      const size = svgSize(head);
      if (size !== undefined) facts = { type: 'svg', ...size };
      else throw refuse(path, 'is an SVG without a width and height or viewBox');
    }
  }
  if (facts === undefined) throw refuse(path, 'is not a PNG, JPEG or SVG image');
  if (!(facts.width > 0 && facts.height > 0) || facts.width * facts.height > maxPixels)
    throw refuse(path, `has an unusable size (${facts.width}×${facts.height} pixels)`);
  return facts;
}

/** The image's box scaled to fit `maxWidth` × `maxHeight` (any unit), never enlarged past 1 unit a pixel. */
export function fitImage(facts: ImageFacts, maxWidth: number, maxHeight: number, unitsPerPixel: number): { width: number; height: number } {
  const scale = Math.min(unitsPerPixel, maxWidth / facts.width, maxHeight / facts.height);
  return { width: facts.width * scale, height: facts.height * scale };
}
