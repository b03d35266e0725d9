/** Figures (charts and images) in build_document's DOCX: sized to the text width, shrunk or moved where the page has no room. */
import { AlignmentType, ImageRun, LineRuleType, Paragraph } from 'docx';
import type { FigureBlock } from './document-spec.js';
import { xmlSafeText } from './table-notes.js';

/** Pixels at 96 to the inch: 15 twips, 0.75 points a pixel. */
const twipsPerPixel = 15;
const pointsPerPixel = 0.75;
/** The tallest a figure is drawn, in pixels (about 16 cm). */
const maxHeightPixels = 620;

/** A figure's scale in a text column `textWidthTwips` wide: at most the text width and 620 pixels tall, never enlarged. */
export function naturalScale(figure: FigureBlock, textWidthTwips: number): number {
  return Math.min(1, textWidthTwips / twipsPerPixel / figure.width, maxHeightPixels / figure.height);
}

/** Height in points of a figure drawn at `scale`. */
export function figureHeightPoints(figure: FigureBlock, scale: number): number {
  return figure.height * scale * pointsPerPixel;
}

const numbered = /^(figure|fig\.?|chart|exhibit)\s*\d+/i;

/** The caption of a figure that moved: "Figure 3: Revenue by region", keeping a number its title already has. */
export function movedCaption(figure: FigureBlock, number: number): { label: string; caption: string } {
  const title = figure.title === undefined ? undefined : xmlSafeText(figure.title);
  const own = title?.match(numbered)?.[0];
  if (own !== undefined && title !== undefined) return { label: own, caption: title };
  const label = `Figure ${number}`;
  return { label, caption: title === undefined ? label : `${label}: ${title}` };
}

/** The line left where a moved figure was asked for. */
export function referenceParagraph(label: string, title: string | undefined): Paragraph {
  const about = title === undefined || numbered.test(title) ? '' : ` (${xmlSafeText(title)})`;
  return new Paragraph({ text: `${label}${about} follows below.`, style: 'Caption' });
}

/** A figure centred at `scale`, its caption below in the Caption style. */
export function figureParagraphs(figure: FigureBlock, scale: number, caption: string | undefined): Paragraph[] {
  const transformation = { width: Math.round(figure.width * scale), height: Math.round(figure.height * scale) };
  const run = new ImageRun({ type: figure.format, data: figure.data, transformation });
  // Single spacing set outright: LibreOffice lets an inline image in a paragraph without it grow upwards over what is above.
  const paragraphs = [
    new Paragraph({
      alignment: AlignmentType.CENTER,
      spacing: { before: 120, line: 240, lineRule: LineRuleType.AUTO },
      children: [run],
      keepNext: caption !== undefined,
    }),
  ];
  if (caption !== undefined) paragraphs.push(new Paragraph({ text: xmlSafeText(caption), style: 'Caption', alignment: AlignmentType.CENTER }));
  return paragraphs;
}
