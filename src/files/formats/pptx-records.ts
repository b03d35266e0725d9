/** A table laid out one record per block on slides (plan "records"): each row a "field | value" table, as many slides as its measured height needs. */
import type pptxgenModule from 'pptxgenjs';
import { formatCount } from '../../util/format.js';
import { pageRows, rowHeight } from '../layout/table-pages.js';
import type { TablePlan } from '../layout/table-plan.js';
import { addSlideLine, body, cellPad, font, master, slide } from './pptx-layout.js';
import type { TableText } from './table-text.js';

type Presentation = InstanceType<typeof pptxgenModule.default>;
type Slide = ReturnType<Presentation['addSlide']>;
type TableRows = Parameters<Slide['addTable']>[0];

const headerFill = 'D9E2F3';
const fieldFill = 'F2F2F2';

/**
 * Slides for a table in records: row by row, the key line ("order_id:
 * 100003") heading a two-column table of the other fields, paged by measured
 * heights so every line is inside the slide; a record taller than a slide
 * continues on the next, the title and the line under it saying which fields.
 * Returns the number of slides added.
 */
export function addRecordSlides(options: {
  pptx: Presentation;
  text: TableText;
  plan: TablePlan;
  title: string;
  subtitle: string | undefined;
  top: number;
}): number {
  const { pptx, text, plan, title, subtitle, top } = options;
  const widths = (plan.record?.widths ?? [0, 0]).map((points) => points / 72);
  const whole = widths.reduce((sum, width) => sum + width, 0);
  const key = plan.key ?? 0;
  const fields = text.headers.map((_, column) => column).filter((column) => column !== key);
  const measure = (cells: string[], at: number[]) =>
    rowHeight({ cells, widths: at, fontSize: plan.fontSize, pointsPerUnit: 72, padX: cellPad.x, padY: cellPad.y });
  const total = text.cells.length;
  let slides = 0;
  text.cells.forEach((values, row) => {
    const heading = `${text.headers[key] ?? ''}: ${values[key] ?? ''}`;
    const headingHeight = measure([heading], [whole]);
    const heights = fields.map((column) => measure([text.headers[column] ?? '', values[column] ?? ''], widths));
    const pages = pageRows({ heights, header: headingHeight, available: body.bottom - top });
    for (const [first, end] of pages) {
      const added = pptx.addSlide({ masterName: master });
      added.addText(`${title} (row ${formatCount(row + 1)} of ${formatCount(total)})`, { placeholder: 'title' });
      const which = pages.length > 1 ? `fields ${first + 1}–${end} of ${fields.length}` : `${fields.length} fields`;
      addSlideLine(added, [subtitle, `One block per row: ${heading} · ${which}`].filter((part) => part !== undefined).join(' · '));
      const lines = fields.slice(first, end).map((column) => [
        { text: text.headers[column] ?? '', options: { bold: true, fill: { color: fieldFill } } },
        { text: values[column] ?? '', options: {} },
      ]);
      added.addTable([[{ text: heading, options: { bold: true, colspan: 2, fill: { color: headerFill } } }], ...lines] as TableRows, {
        x: slide.margin,
        y: top,
        w: whole,
        colW: widths,
        rowH: [headingHeight, ...heights.slice(first, end)],
        fontFace: font,
        fontSize: plan.fontSize,
        valign: 'top',
        border: { type: 'solid', pt: 0.5, color: 'A6A6A6' },
        autoPage: false,
      });
      slides += 1;
    }
  });
  return slides;
}
