import type pptxgenModule from 'pptxgenjs';

/** The slide geometry, type sizes and masters of build_document's PPTX (pptx-writer.ts). */

type Presentation = InstanceType<typeof pptxgenModule.default>;

export const slide = { width: 13.333, height: 7.5, margin: 0.5 };
export const contentWidth = slide.width - 2 * slide.margin;
/** The body area under the title placeholder and above the slide number, in inches. */
export const body = { top: 1.35, bottom: 6.85 };
export const textSize = 18;
export const tableSize = 10;
/** A wide table may go down to this size before it is split into parts of columns. */
export const minTableSize = 8;
/** A table row is never taller than this share of the slide's table area: longer cells are cut. */
export const maxRowShare = 1 / 2;
/** pptxgenjs's default cell margins in inches (top/bottom 0.05, left/right 0.1). */
export const cellPad = { x: 0.1, y: 0.05 };
export const master = 'SPILLWAY_CONTENT';
export const titleMaster = 'SPILLWAY_TITLE';
const accent = '1F3864';

type Slide = ReturnType<Presentation['addSlide']>;

/** The line under a slide's title: a table's caption, which columns or fields the slide shows. */
export function addSlideLine(target: Slide, line: string, font: string): void {
  target.addText(line, {
    x: slide.margin,
    y: body.top - 0.05,
    w: contentWidth,
    h: 0.35,
    fontFace: font,
    fontSize: 14,
    italic: true,
    color: '404040',
    margin: 0,
  });
}

/** The title slide and content slide masters in `font`: title placeholder, accent rule, slide numbers. */
export function defineMasters(pptx: Presentation, font: string): void {
  // The theme names the family too, for text a reader adds later.
  pptx.theme = { headFontFace: font, bodyFontFace: font };
  pptx.defineSlideMaster({
    title: titleMaster,
    background: { color: 'FFFFFF' },
    objects: [
      { rect: { x: 0, y: 0, w: slide.width, h: 0.25, fill: { color: accent } } },
      {
        placeholder: {
          options: {
            name: 'title',
            type: 'title',
            x: slide.margin,
            y: 2.3,
            w: contentWidth,
            h: 1.5,
            fontFace: font,
            fontSize: 36,
            bold: true,
            color: accent,
            align: 'center',
            valign: 'bottom',
          },
          text: '',
        },
      },
      {
        placeholder: {
          options: {
            name: 'subtitle',
            type: 'body',
            x: slide.margin,
            y: 3.9,
            w: contentWidth,
            h: 0.9,
            fontFace: font,
            fontSize: 20,
            color: '595959',
            align: 'center',
            valign: 'top',
          },
          text: '',
        },
      },
    ],
  });
  pptx.defineSlideMaster({
    title: master,
    background: { color: 'FFFFFF' },
    objects: [
      { rect: { x: slide.margin, y: 1.12, w: contentWidth, h: 0.03, fill: { color: accent } } },
      {
        placeholder: {
          options: {
            name: 'title',
            type: 'title',
            x: slide.margin,
            y: 0.3,
            w: contentWidth,
            h: 0.8,
            fontFace: font,
            fontSize: 26,
            bold: true,
            color: accent,
            align: 'left',
            valign: 'bottom',
            margin: 0,
          },
          text: '',
        },
      },
    ],
    slideNumber: { x: slide.width - slide.margin - 0.8, y: 7.0, w: 0.8, h: 0.3, fontFace: font, fontSize: 10, color: '808080', align: 'right' },
  });
}
