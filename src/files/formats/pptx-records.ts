/** A table laid out one record per block on slides (plan "records"): each row "field | value" lines, side by side when that needs fewer slides. */
import type pptxgenModule from 'pptxgenjs';
import { formatCount } from '../../util/format.js';
import { pageRows, rowHeight } from '../layout/table-pages.js';
import { recordWidths, type TablePlan } from '../layout/table-plan.js';
import { addSlideLine, body, cellPad, contentWidth, master, maxRowShare, slide } from './pptx-layout.js';
import type { TableText } from './table-text.js';

type Presentation = InstanceType<typeof pptxgenModule.default>;
type Slide = ReturnType<Presentation['addSlide']>;
type TableRows = Parameters<Slide['addTable']>[0];

const headerFill = 'D9E2F3';
const fieldFill = 'F2F2F2';
/** Inches between two columns of fields, and under the key line. */
const gap = 0.15;
/** At most this many "field | value" columns side by side; the count is chosen by the first records. */
const maxColumns = 3;
const sampleRecords = 50;

interface Geometry {
  key: number;
  fields: number[];
  /** Inches: one column of fields, and the key line across them all. */
  widths: [number, number];
  whole: number;
}

function geometry(text: TableText, plan: TablePlan): Geometry {
  const key = plan.key ?? 0;
  const [field, value] = (plan.record?.widths ?? [0, 0]).map((points) => points / 72) as [number, number];
  const columns = plan.record?.columns ?? 1;
  return {
    key,
    fields: text.headers.map((_, column) => column).filter((column) => column !== key),
    widths: [field, value],
    whole: columns * (field + value) + (columns - 1) * gap,
  };
}

function measure(cells: string[], widths: number[], fontSize: number): number {
  return rowHeight({ cells, widths, fontSize, pointsPerUnit: 72, padX: cellPad.x, padY: cellPad.y });
}

/** A record's key line, and its fields in columns of at most `room` inches: [first, end) field ranges. */
function recordPages(options: { text: TableText; plan: TablePlan; shape: Geometry; row: number; room: number }) {
  const { text, plan, shape, row, room } = options;
  const values = text.cells[row] ?? [];
  const heading = `${text.headers[shape.key] ?? ''}: ${values[shape.key] ?? ''}`;
  const headingHeight = measure([heading], [shape.whole], plan.fontSize);
  const heights = shape.fields.map((column) => measure([text.headers[column] ?? '', values[column] ?? ''], shape.widths, plan.fontSize));
  const pages = pageRows({ heights: heights.map((height) => Math.min(height, room * maxRowShare)), header: 0, available: room - headingHeight - gap });
  return { heading, headingHeight, heights, pages };
}

/**
 * The record plan for slides: 1 to 3 columns of "field | value" lines side by
 * side, the count whose column widths put the first records on the fewest
 * slides (the fewer columns on a tie). `room` is the height under the title.
 */
export function slideRecordPlan(options: { text: TableText; plan: TablePlan; room: number; padding: number }): TablePlan {
  const { text, plan, room, padding } = options;
  let best: { plan: TablePlan; slides: number } | undefined;
  for (let columns = 1; columns <= maxColumns; columns += 1) {
    const width = ((contentWidth - (columns - 1) * gap) / columns) * 72;
    const candidate: TablePlan = {
      ...plan,
      record: { widths: recordWidths({ headers: text.headers, available: width, fontSize: plan.fontSize, padding }), columns },
    };
    const shape = geometry(text, candidate);
    let slides = 0;
    for (let row = 0; row < Math.min(sampleRecords, text.cells.length); row += 1)
      slides += Math.ceil(recordPages({ text, plan: candidate, shape, row, room }).pages.length / columns);
    if (best === undefined || slides < best.slides) best = { plan: candidate, slides };
  }
  return best?.plan ?? plan;
}

/**
 * Slides for a table in records: row by row, the key line ("order_id:
 * 100003") over the other fields in columns of "field | value" lines, paged by
 * measured heights so every line is inside the slide; a record taller than a
 * slide continues on the next, the title and the line under it saying which
 * fields. Returns the number of slides added.
 */
export function addRecordSlides(options: {
  pptx: Presentation;
  text: TableText;
  plan: TablePlan;
  title: string;
  subtitle: string | undefined;
  top: number;
  font: string;
}): number {
  const { pptx, text, plan, title, subtitle, top, font } = options;
  const shape = geometry(text, plan);
  const columns = plan.record?.columns ?? 1;
  const room = body.bottom - top;
  const total = text.cells.length;
  let slides = 0;
  text.cells.forEach((values, row) => {
    const { heading, headingHeight, heights, pages } = recordPages({ text, plan, shape, row, room });
    for (let at = 0; at < pages.length; at += columns) {
      const shown = pages.slice(at, at + columns);
      const added = pptx.addSlide({ masterName: master });
      added.addText(`${title} (row ${formatCount(row + 1)} of ${formatCount(total)})`, { placeholder: 'title' });
      const first = shown[0]?.[0] ?? 0;
      const end = shown[shown.length - 1]?.[1] ?? 0;
      const which = pages.length > columns ? `fields ${first + 1}–${end} of ${shape.fields.length}` : `${shape.fields.length} fields`;
      addSlideLine(added, [subtitle, `One block per row: ${heading} · ${which}`].filter((part) => part !== undefined).join(' · '), font);
      const style = { fontFace: font, fontSize: plan.fontSize, valign: 'top', border: { type: 'solid', pt: 0.5, color: 'A6A6A6' }, autoPage: false } as const;
      added.addTable([[{ text: heading, options: { bold: true, fill: { color: headerFill } } }]] as TableRows, {
        ...style,
        x: slide.margin,
        y: top,
        w: shape.whole,
        colW: [shape.whole],
        rowH: [headingHeight],
      });
      shown.forEach(([from, to], column) => {
        const lines = shape.fields.slice(from, to).map((field) => [
          { text: text.headers[field] ?? '', options: { bold: true, fill: { color: fieldFill } } },
          { text: values[field] ?? '', options: {} },
        ]);
        added.addTable(lines as TableRows, {
          ...style,
          x: slide.margin + column * (shape.widths[0] + shape.widths[1] + gap),
          y: top + headingHeight + gap,
          w: shape.widths[0] + shape.widths[1],
          colW: shape.widths,
          rowH: heights.slice(from, to),
        });
      });
      slides += 1;
    }
  });
  return slides;
}
