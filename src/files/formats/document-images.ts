import { readFile, stat } from 'node:fs/promises';
import { ConversationSandbox } from '../../sandbox/index.js';
import { SpillwayError } from '../../errors.js';
import { imageFacts, maxImageBytes, type ImageFacts } from '../layout/image-facts.js';
import type { DocumentSpec } from './document-spec.js';
import type { DocumentTask } from '../pool/worker-task.js';

/** An image block's file, checked by its bytes. */
export interface LoadedImage {
  bytes: Buffer;
  facts: ImageFacts;
  /** Share of the text width the image may take (the block's `width`, default 1). */
  widthShare: number;
}

/** A 1×1 transparent PNG: the fallback Word requires beside an SVG (Word 2016 and later, and LibreOffice, draw the SVG itself). */
export const transparentPixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** Reads every image block's file (in the conversation sandbox for tools), refusing what is not a PNG, JPEG or SVG, or too large. */
export async function loadDocumentImages(options: { spec: DocumentSpec; sources: DocumentTask['sources'] }): Promise<Map<number, LoadedImage>> {
  const images = new Map<number, LoadedImage>();
  for (const [index, block] of options.spec.blocks.entries()) {
    if (block.type !== 'image') continue;
    let bytes: Buffer;
    let name = block.path;
    if (options.sources.kind === 'sandbox') {
      const sandbox = new ConversationSandbox(options.sources.root, options.sources.conversationId);
      try {
        const read = await sandbox.readFile(block.path, { maxBytes: maxImageBytes });
        bytes = read.data;
        name = read.relative;
      } catch (error) {
        if (error instanceof SpillwayError && error.code === 'RESULT_TOO_LARGE') {
          throw new SpillwayError(
            'IMAGE_INVALID',
            `blocks[${index}]: ${block.path} is larger than ${maxImageBytes / 1024 / 1024} MiB, too large for a document.`,
            { block: index, path: block.path },
          );
        }
        throw error;
      }
    } else {
      const size = (await stat(block.path)).size;
      if (size > maxImageBytes)
        throw new SpillwayError('IMAGE_INVALID', `${block.path} is larger than ${maxImageBytes / 1024 / 1024} MiB, too large for a document.`, {
          path: block.path,
        });
      bytes = await readFile(block.path);
    }
    images.set(index, { bytes, facts: imageFacts(bytes, name), widthShare: block.width ?? 1 });
  }
  return images;
}
