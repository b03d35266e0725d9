import { formatCount } from '../util/format.js';

/**
 * Shortens a long error message for the model, keeping the head and the tail:
 * the exception line of a traceback is usually the last one, and cutting only
 * the end loses it.
 */
export function shortenError(text: string, headChars: number, tailChars: number, fullTextPath?: string): string {
  if (text.length <= headChars + tailChars + 200) return text;
  const head = text.slice(0, safeEnd(text, headChars));
  const tail = text.slice(safeStart(text, text.length - tailChars));
  const omitted = text.length - head.length - tail.length;
  const where = fullTextPath === undefined ? '' : `; the full text is in ${fullTextPath}`;
  return `${head}\n… [${formatCount(omitted)} characters omitted${where}] …\n${tail}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function safeEnd(text: string, end: number): number {
  return end > 0 && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

function safeStart(text: string, start: number): number {
  return start < text.length && isHighSurrogate(text.charCodeAt(start - 1)) ? start + 1 : start;
}
