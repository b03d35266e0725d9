/** build_document as PPTX (pptxgenjs): title slide, text slides, tables paginated with the header on every slide. */
import pptxgenModule from 'pptxgenjs';
import { formatCount } from '../../util/format.js';
import { SpillwayError } from '../../errors.js';
import type { FigureBlock } from './document-spec.js';
import { loadDocumentTables, type LoadedTable } from './document-tables.js';
import { displayText, xmlSafeText, numericColumns } from './table-notes.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { DocumentResult, DocumentTask, ProgressMessage } from '../pool/worker-task.js';

// pptxgenjs's types describe a CommonJS default export, its ESM build exports the class itself.
type Presentation = InstanceType<typeof pptxgenModule.default>;
type TableRows = Parameters<ReturnType<Presentation['addSlide']>['addTable']>[0];
const PptxGenJS = ((pptxgenModule as unknown as { default?: unknown }).default ?? pptxgenModule) as typeof pptxgenModule.default;

/** Table rows per slide (10 pt text on a 16:9 slide), header not counted. */
export const tableRowsPerSlide = 15;
/** Longer cell text is cut with "…": a slide is for reading, the full text belongs in export_table. */
export const maxCellChars = 300;
/** Lines of text a content slide takes before continuing on the next. */
const linesPerSlide = 14;
const charsPerLine = 95;
const slideWidth = 13.333;
const slideHeight = 7.5;
const margin = 0.5;

type TextItem = { text: string; options: Record<string, unknown> };

export async function writePptx(task: DocumentTask, progress: (message: ProgressMessage) => void): Promise<DocumentResult> {
  const tables = await loadDocumentTables({ spec: task.spec, sources: task.sources, maxTableRows: task.maxTableRows, onProgress: progress });
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE';
  pptx.title = xmlSafeText(task.spec.title);
  pptx.author = 'spillway';
  let slides = 0;
  let cutCells = 0;
  const contentWidth = slideWidth - 2 * margin;

  const titleSlide = pptx.addSlide();
  slides += 1;
  titleSlide.addText(xmlSafeText(task.spec.title), { x: margin, y: 2.4, w: contentWidth, h: 1.4, fontSize: 36, bold: true, align: 'center', valign: 'middle' });
  if (task.spec.subtitle !== undefined) {
    titleSlide.addText(xmlSafeText(task.spec.subtitle), { x: margin, y: 3.9, w: contentWidth, h: 0.8, fontSize: 20, align: 'center', color: '555555' });
  }

  let text: { title: string | undefined; items: TextItem[]; lines: number } | undefined;
  const flushText = () => {
    if (text === undefined || (text.items.length === 0 && text.title === undefined)) return;
    const slide = pptx.addSlide();
    slides += 1;
    if (text.title !== undefined) slide.addText(text.title, { x: margin, y: 0.3, w: contentWidth, h: 0.9, fontSize: 28, bold: true });
    if (text.items.length > 0) slide.addText(text.items, { x: margin, y: 1.3, w: contentWidth, h: 5.8, fontSize: 18, valign: 'top' });
    text = undefined;
  };
  const addText = (item: TextItem, lines: number) => {
    if (text !== undefined && text.lines + lines > linesPerSlide && text.items.length > 0) {
      const title = text.title;
      flushText();
      text = { title: title === undefined ? undefined : `${title} (continued)`, items: [], lines: 0 };
    }
    text ??= { title: undefined, items: [], lines: 0 };
    text.items.push(item);
    text.lines += lines;
  };
  const linesOf = (value: string) => Math.max(1, Math.ceil(value.length / charsPerLine));

  for (const [index, block] of task.spec.blocks.entries()) {
    switch (block.type) {
      case 'heading':
        flushText();
        text = { title: xmlSafeText(block.text), items: [], lines: 0 };
        break;
      case 'paragraph':
        for (const part of xmlSafeText(block.text).split(/\n\s*\n/)) addText({ text: part, options: { breakLine: true, paraSpaceAfter: 8 } }, linesOf(part) + 1);
        break;
      case 'bullets':
        for (const item of block.items) addText({ text: xmlSafeText(item), options: { bullet: true, breakLine: true } }, linesOf(item));
        break;
      case 'table': {
        const heading = text?.items.length === 0 ? text.title : undefined;
        if (heading !== undefined) text = undefined;
        else flushText();
        const table = tables.get(index) as LoadedTable;
        const caption = block.title ?? heading ?? block.source;
        const added = addTableSlides({ pptx, table, caption: xmlSafeText(caption), contentWidth });
        slides += added.slides;
        cutCells += added.cutCells;
        break;
      }
      case 'figure': {
        const heading = text?.items.length === 0 ? text.title : undefined;
        if (heading !== undefined) text = undefined;
        else flushText();
        addFigureSlide({ pptx, figure: block, caption: block.title ?? heading, contentWidth });
        slides += 1;
        break;
      }
      case 'chart':
      case 'image':
        // build_document turns these into figures before the task reaches a worker.
        throw new SpillwayError('INTERNAL', `A ${block.type} block reached the PPTX writer unresolved.`);
    }
  }
  flushText();

  // Only outputType 'STREAM' honours compression under Node (pptxgenjs 4.0.1); it returns a Buffer.
  const data = (await pptx.write({ outputType: 'STREAM', compression: true })) as Buffer;
  const output = await openOutput(task.output);
  try {
    await writeChunk(output.pending.stream, data);
    const file = await output.commit();
    const tableFacts = [...tables.values()].map((table) => ({ source: table.source, rows: table.rows.length, columns: table.columns, stats: table.stats }));
    const notes = cutCells > 0 ? [`${formatCount(cutCells)} table cells were longer than ${maxCellChars} characters and were cut with "…" to fit the slides.`] : [];
    return { ...file, rows: tableFacts.reduce((sum, table) => sum + table.rows, 0), tables: tableFacts, slides, notes };
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/** A slide with the figure fitted below its caption (or the preceding heading), centred, never larger than 96 px an inch. */
function addFigureSlide(options: { pptx: Presentation; figure: FigureBlock; caption: string | undefined; contentWidth: number }): void {
  const { pptx, figure, caption, contentWidth } = options;
  const slide = pptx.addSlide();
  const top = caption === undefined ? margin : 1.3;
  if (caption !== undefined) slide.addText(xmlSafeText(caption), { x: margin, y: 0.3, w: contentWidth, h: 0.9, fontSize: 28, bold: true });
  const boxHeight = slideHeight - top - margin;
  const scale = Math.min(1 / 96, contentWidth / figure.width, boxHeight / figure.height);
  const w = figure.width * scale;
  const h = figure.height * scale;
  const base64 = Buffer.from(figure.data.buffer, figure.data.byteOffset, figure.data.byteLength).toString('base64');
  const data = `image/${figure.format === 'jpg' ? 'jpeg' : 'png'};base64,${base64}`;
  slide.addImage({ data, x: margin + (contentWidth - w) / 2, y: top + (boxHeight - h) / 2, w, h });
}

/** Slides for one table: {@link tableRowsPerSlide} rows each, the header row repeated, the title saying which rows. */
function addTableSlides(options: { pptx: Presentation; table: LoadedTable; caption: string; contentWidth: number }): { slides: number; cutCells: number } {
  const { pptx, table, caption, contentWidth } = options;
  let cutCells = 0;
  const cellText = (value: unknown) => {
    let shown = xmlSafeText(displayText(value));
    if (shown.length > maxCellChars) {
      cutCells += 1;
      shown = `${shown.slice(0, maxCellChars - 1)}…`;
    }
    return shown;
  };
  const numeric = numericColumns(table.columns.length, table.rows);
  const header = table.columns.map((column) => ({ text: xmlSafeText(column.header), options: { bold: true, fill: { color: 'E7E6E6' } } }));
  const colW = table.columns.map(() => contentWidth / Math.max(1, table.columns.length));
  const total = table.rows.length;
  const pages = Math.max(1, Math.ceil(total / tableRowsPerSlide));
  for (let page = 0; page < pages; page += 1) {
    const first = page * tableRowsPerSlide;
    const rows = table.rows.slice(first, first + tableRowsPerSlide);
    const slide = pptx.addSlide();
    const which = total === 0 ? 'no rows' : `rows ${formatCount(first + 1)}–${formatCount(first + rows.length)} of ${formatCount(total)}`;
    slide.addText(`${caption} (${which})`, { x: margin, y: 0.25, w: contentWidth, h: 0.7, fontSize: 20, bold: true });
    const body = rows.map((row) => row.map((value, index) => ({ text: cellText(value), options: numeric[index] === true ? { align: 'right' } : {} })));
    slide.addTable([header, ...body] as TableRows, {
      x: margin,
      y: 1.05,
      w: contentWidth,
      colW,
      fontSize: 10,
      border: { type: 'solid', pt: 0.5, color: 'A6A6A6' },
      autoPage: false,
    });
  }
  return { slides: pages, cutCells };
}
