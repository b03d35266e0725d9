import { SpillwayError } from '../errors.js';

export interface ImageSize {
  type: 'png' | 'jpg';
  width: number;
  height: number;
}

/** Images larger than this are refused in documents. */
export const maxDocumentImageBytes = 10 * 1024 * 1024;

function jpegSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 2;
  while (at + 9 < view.length) {
    if (view[at] !== 0xff) return undefined;
    const marker = view[at + 1] ?? 0;
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.readUInt16BE(at + 5), width: view.readUInt16BE(at + 7) };
    }
    at += 2 + view.readUInt16BE(at + 2);
  }
  return undefined;
}

/** What a PNG or JPEG is and how large, from its bytes (never its name); anything else is refused. */
export function imageSize(bytes: Uint8Array, path: string): ImageSize {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let size: ImageSize | undefined;
  if (view.length > 24 && view.readUInt32BE(0) === 0x89504e47 && view.toString('latin1', 12, 16) === 'IHDR') {
    size = { type: 'png', width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
  } else if (view.length > 4 && view[0] === 0xff && view[1] === 0xd8) {
    const found = jpegSize(bytes);
    if (found !== undefined) size = { type: 'jpg', ...found };
  }
  if (size === undefined || !(size.width > 0 && size.height > 0) || size.width * size.height > 40_000_000) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `${path} is not a usable PNG, JPEG or SVG image; an image block takes a PNG, JPEG or SVG file from the sandbox, e.g. a build_chart output.`,
      {
        path,
      },
    );
  }
  return size;
}

/** The image scaled to fit a box (any unit), keeping its proportions. */
export function fitImage(size: { width: number; height: number }, maxWidth: number, maxHeight: number): { width: number; height: number } {
  const scale = Math.min(maxWidth / size.width, maxHeight / size.height);
  return { width: size.width * scale, height: size.height * scale };
}
