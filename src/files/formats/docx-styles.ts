/** The DOCX paragraph styles of build_document, in one table that both the document's styles and the page-height estimates read. */
import { LineRuleType } from 'docx';

/** Half-points: 10 pt body. */
export const bodySize = 20;
/** Paragraphs are spaced at 1.15 lines (276 of 240ths). */
export const bodyLine = 276;

interface StyleMetrics {
  /** Points. */
  size: number;
  /** Spacing before and after, in points. */
  before: number;
  after: number;
}

/** Sizes and spacing of each style, in points. */
export const styleMetrics = {
  body: { size: 10, before: 0, after: 6 },
  title: { size: 24, before: 0, after: 6 },
  subtitle: { size: 14, before: 0, after: 18 },
  heading1: { size: 16, before: 18, after: 6 },
  heading2: { size: 13, before: 14, after: 6 },
  heading3: { size: 11, before: 12, after: 6 },
  caption: { size: 9, before: 6, after: 4 },
  listItem: { size: 10, before: 0, after: 2 },
} as const satisfies Record<string, StyleMetrics>;

export type StyleName = keyof typeof styleMetrics;

const twips = (points: number) => points * 20;
const halfPoints = (points: number) => points * 2;

/** The document's styles, every one in `font` (headings, title, caption and the body and tables through the document default). */
export function documentStyles(font: string) {
  const style = (id: string, name: string, metrics: StyleMetrics, run: Record<string, unknown>) => ({
    id,
    name,
    basedOn: 'Normal',
    next: 'Normal',
    quickFormat: true,
    run: { font, size: halfPoints(metrics.size), ...run },
    paragraph: { spacing: { ...(metrics.before > 0 ? { before: twips(metrics.before) } : {}), after: twips(metrics.after) } },
  });
  const heading = (level: 1 | 2 | 3) => {
    const made = style(`Heading${level}`, `Heading ${level}`, styleMetrics[`heading${level}`], { bold: true, color: '1F3864' });
    return { ...made, paragraph: { ...made.paragraph, keepNext: true } };
  };
  return {
    default: {
      document: {
        run: { font, size: bodySize },
        paragraph: { spacing: { after: twips(styleMetrics.body.after), line: bodyLine, lineRule: LineRuleType.AUTO } },
      },
    },
    paragraphStyles: [
      style('Title', 'Title', styleMetrics.title, { bold: true, color: '1F3864' }),
      style('Subtitle', 'Subtitle', styleMetrics.subtitle, { color: '595959' }),
      heading(1),
      heading(2),
      heading(3),
      style('Caption', 'Caption', styleMetrics.caption, { italics: true, color: '404040' }),
    ],
  };
}
