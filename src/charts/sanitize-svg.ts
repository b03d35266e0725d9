/**
 * A chart's SVG made self-contained before it is rasterized or written: a
 * colour or link from the spec or the rows could otherwise make a viewer fetch
 * a URL (`fill="url(http://…)"`, `xlink:href="http://…"`). References to an
 * id in the same SVG (`url(#gradient_1)`) and data: URIs stay.
 */

/** Attributes whose value is plain text, never CSS or a reference. */
const textAttributes = /^(?:aria-[\w-]+|role|class)$/i;

/** An attribute value with XML entities and CSS escapes decoded: what a browser's CSS parser sees. */
function decoded(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff)))
    .replace(/&#(\d+);?/g, (_, digits: string) => String.fromCodePoint(Math.min(Number.parseInt(digits, 10), 0x10ffff)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_, hex: string) => String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff)))
    .replace(/\\(.)/g, '$1');
}

const isLocal = (target: string): boolean => /^\s*["']?\s*(?:#|data:)/i.test(target);

/** True when a CSS value refers to something outside the SVG. */
function refersOutside(value: string): boolean {
  const text = decoded(value);
  if (/@import|image-set\s*\(|expression\s*\(/i.test(text)) return true;
  for (const match of text.matchAll(/url\s*\(([^)]*)\)?/gi)) if (!isLocal(match[1] ?? '')) return true;
  return false;
}

function sanitizeTag(tag: string): string {
  return tag.replace(/(\s)([\w:.-]+)(\s*=\s*)("[^"]*"|'[^']*')/g, (whole, space: string, name: string, equals: string, quoted: string) => {
    const value = quoted.slice(1, -1);
    if (/^(?:xlink:)?href$/i.test(name)) return isLocal(decoded(value)) ? whole : '';
    if (textAttributes.test(name)) return whole;
    return refersOutside(value) ? `${space}${name}${equals}"none"` : whole;
  });
}

/** The SVG with every external reference in its tags' attributes removed (a fill or stroke becomes "none"). */
export function sanitizeSvg(svg: string): string {
  return svg.replace(/<[^>]*>/g, sanitizeTag);
}
