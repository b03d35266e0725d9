/** A run of paragraph text with the inline marks a spec may use. */
export interface TextSpan {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  /** http(s) or mailto target of a link. */
  link?: string;
}

/**
 * The inline Markdown a document paragraph understands: **bold**, *italic* or
 * _italic_, `code`, [text](https://…). Anything else, and an unclosed mark,
 * stays literal text; links other than http, https and mailto stay text.
 */
const token =
  /\*\*([^*\n]+?)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])|(?<!\w)_([^_\s][^_\n]*?)_(?!\w)|`([^`\n]+)`|\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^)\s]+)\)/g;

export function inlineSpans(text: string): TextSpan[] {
  const spans: TextSpan[] = [];
  let at = 0;
  for (const match of text.matchAll(token)) {
    const index = match.index;
    if (index > at) spans.push({ text: text.slice(at, index) });
    const [, bold, star, underscore, code, label, link] = match;
    if (bold !== undefined) spans.push({ text: bold, bold: true });
    else if (star !== undefined || underscore !== undefined) spans.push({ text: star ?? underscore ?? '', italic: true });
    else if (code !== undefined) spans.push({ text: code, code: true });
    else if (label !== undefined && link !== undefined) spans.push({ text: label, link });
    at = index + match[0].length;
  }
  if (at < text.length) spans.push({ text: text.slice(at) });
  return spans;
}
