/** build_document as PPTX (pptxgenjs): slides on a master with a title placeholder and slide numbers; text and tables paged by measured height. */
import pptxgenModule from 'pptxgenjs';
import { formatCount } from '../../util/format.js';
import { defaultLocale } from '../columns/format-values.js';
import { planTable } from '../layout/table-plan.js';
import { SpillwayError } from '../../errors.js';
import { inlineSpans } from '../layout/inline-text.js';
import { pageRows, rowHeight } from '../layout/table-pages.js';
import { wrappedLines } from '../layout/text-width.js';
import type { FigureBlock, ListEntry } from './document-spec.js';
import { loadDocumentTables, tableCaption, zoneOf, type LoadedTable } from './document-tables.js';
import { zoneNote } from '../columns/time-zone-label.js';
import { cutCellsNote, cutPlanCells, tableText, tallCellsNote, type TableText } from './table-text.js';
import { partColumns, tablePlanNote } from './table-plan-note.js';
import { xmlSafeText } from './table-notes.js';
import { defaultFontFamily } from '../../util/font-family-name.js';
import { widerFontNote } from './font-family.js';
import {
  slide,
  contentWidth,
  body,
  textSize,
  tableSize,
  minTableSize,
  maxRowShare,
  cellPad,
  master,
  titleMaster,
  defineMasters,
  addSlideLine,
} from './pptx-layout.js';
import { addRecordSlides, slideRecordPlan } from './pptx-records.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { DocumentResult, DocumentTask, ProgressMessage } from '../pool/worker-task.js';

// pptxgenjs's types describe a CommonJS default export, its ESM build exports the class itself.
type Presentation = InstanceType<typeof pptxgenModule.default>;
type Slide = ReturnType<Presentation['addSlide']>;
type TableRows = Parameters<Slide['addTable']>[0];
type TextRuns = Exclude<Parameters<Slide['addText']>[0], string>;
const PptxGenJS = ((pptxgenModule as unknown as { default?: unknown }).default ?? pptxgenModule) as typeof pptxgenModule.default;

/** Longer cell text is cut with "…": a slide is for reading, the full text belongs in export_table. */
export const maxCellChars = 300;

interface TextItem {
  runs: TextRuns;
  /** Height in inches the item takes on a slide. */
  height: number;
}

export async function writePptx(task: DocumentTask, progress: (message: ProgressMessage) => void): Promise<DocumentResult> {
  const { spec } = task;
  const tables = await loadDocumentTables({ spec, sources: task.sources, maxTableRows: task.maxTableRows, onProgress: progress });
  const locale = spec.locale ?? defaultLocale;
  const font = spec.fontFamily ?? task.fontFamily ?? defaultFontFamily;
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE';
  pptx.title = xmlSafeText(spec.title);
  pptx.author = 'spillway';
  defineMasters(pptx, font);
  let slides = 0;
  const notes: string[] = [];
  const texts: TableText[] = [];

  const addSlide = (title: string): Slide => {
    const added = pptx.addSlide({ masterName: master });
    added.addText(title, { placeholder: 'title' });
    slides += 1;
    return added;
  };

  const first = pptx.addSlide({ masterName: titleMaster });
  first.addText(xmlSafeText(spec.title), { placeholder: 'title' });
  if (spec.subtitle !== undefined) first.addText(xmlSafeText(spec.subtitle), { placeholder: 'subtitle' });
  slides += 1;

  // Text waits here until a slide is full or a heading, table or image comes.
  let heading = xmlSafeText(spec.title);
  let pending: { title: string; items: TextItem[]; used: number; continued: boolean } | undefined;
  let headingShown = true;
  const flush = () => {
    if (pending === undefined) return;
    if (pending.items.length > 0) {
      const added = addSlide(pending.continued ? `${pending.title} (continued)` : pending.title);
      added.addText(
        pending.items.flatMap((item) => item.runs),
        { x: slide.margin, y: body.top, w: contentWidth, h: body.bottom - body.top, fontFace: font, fontSize: textSize, valign: 'top', margin: 0 },
      );
      headingShown = true;
    }
    pending = undefined;
  };
  const addItem = (item: TextItem) => {
    const room = body.bottom - body.top;
    if (pending !== undefined && pending.items.length > 0 && pending.used + item.height > room) {
      const title = pending.title;
      flush();
      pending = { title, items: [], used: 0, continued: true };
    }
    pending ??= { title: heading, items: [], used: 0, continued: headingShown && heading !== xmlSafeText(spec.title) };
    pending.items.push(item);
    pending.used += item.height;
  };

  for (const [index, block] of spec.blocks.entries()) {
    switch (block.type) {
      case 'heading':
        flush();
        if (!headingShown) addSlide(heading); // a heading with nothing under it still gets its slide
        heading = xmlSafeText(block.text);
        headingShown = false;
        break;
      case 'paragraph':
        for (const part of xmlSafeText(block.text).split(/\n\s*\n/)) for (const piece of splitToFit(part)) addItem(paragraphItem(piece));
        break;
      case 'bullets':
      case 'numbered':
        for (const item of listItems(block.items, block.type === 'numbered', 0)) addItem(item);
        break;
      case 'table': {
        flush();
        const table = tables.get(index) as LoadedTable;
        const text = tableText({ columns: table.columns, rows: table.rows, locale, maxCellChars, ...zoneOf(spec) });
        texts.push(text);
        const caption = xmlSafeText(tableCaption(block, table));
        const where = `The table in blocks[${index}]`;
        const added = addTableSlides({ pptx, table, text, title: headingShown ? caption : heading, subtitle: headingShown ? undefined : caption, where, font });
        slides += added.slides;
        headingShown = true;
        const note = cutCellsNote(text.cut, maxCellChars, where);
        const zones = zoneNote({ headers: table.columns.map((column) => column.header), zoned: text.zoned, where, ...zoneOf(spec) });
        for (const each of [note, ...added.notes, zones]) if (each !== undefined) notes.push(each);
        break;
      }
      case 'figure': {
        flush();
        const title = headingShown ? xmlSafeText(block.title ?? spec.title) : heading;
        addFigureSlide({ target: addSlide(title), figure: block, caption: headingShown ? undefined : block.title, font });
        headingShown = true;
        break;
      }
      case 'chart':
      case 'image':
        // build_document turns these into figures before the task reaches a worker.
        throw new SpillwayError('INTERNAL', `A ${block.type} block reached the PPTX writer unresolved.`);
    }
  }
  flush();
  if (!headingShown) addSlide(heading);
  const wider = widerFontNote(font, 'The slides');
  if (wider !== undefined) notes.push(wider);

  // Only outputType 'STREAM' honours compression under Node (pptxgenjs 4.0.1); it returns a Buffer.
  const data = (await pptx.write({ outputType: 'STREAM', compression: true })) as Buffer;
  const output = await openOutput(task.output);
  try {
    await writeChunk(output.pending.stream, data);
    const file = await output.commit();
    const tableFacts = [...tables.values()].map((table) => ({ source: table.source, rows: table.rows.length, columns: table.columns, stats: table.stats }));
    return { ...file, rows: tableFacts.reduce((sum, table) => sum + table.rows, 0), tables: tableFacts, slides, notes };
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/** Lines of `text` at `size` points in `width` inches. */
function linesIn(text: string, width: number, size: number): number {
  return wrappedLines(text, (width * 72) / size);
}

const lineHeight = (size: number) => (size * 1.2) / 72;

/** A paragraph longer than a slide is split at sentence (else word) boundaries into pieces that each fit. */
function splitToFit(text: string): string[] {
  const maxLines = Math.floor((body.bottom - body.top) / lineHeight(textSize)) - 1;
  if (linesIn(text, contentWidth, textSize) <= maxLines) return [text];
  const pieces: string[] = [];
  let current = '';
  const units = text.split(/(?<=[.!?])\s+/).flatMap((sentence) => (linesIn(sentence, contentWidth, textSize) > maxLines ? sentence.split(/\s+/) : [sentence]));
  for (const unit of units) {
    const next = current === '' ? unit : `${current} ${unit}`;
    if (current !== '' && linesIn(next, contentWidth, textSize) > maxLines) {
      pieces.push(current);
      current = unit;
    } else current = next;
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

function spanRuns(text: string, options: Record<string, unknown>): TextRuns {
  const spans = inlineSpans(text);
  return spans.map((span, at) => ({
    text: span.text,
    options: {
      ...(span.bold === true ? { bold: true } : {}),
      ...(span.italic === true ? { italic: true } : {}),
      ...(span.code === true ? { fontFace: 'Courier New' } : {}),
      ...(span.link !== undefined ? { hyperlink: { url: span.link } } : {}),
      ...(at === 0 ? options : {}),
      ...(at === spans.length - 1 ? { breakLine: true } : {}),
    },
  }));
}

function paragraphItem(text: string): TextItem {
  const plain = inlineSpans(text)
    .map((span) => span.text)
    .join('');
  return { runs: spanRuns(text, { paraSpaceAfter: 10 }), height: linesIn(plain, contentWidth, textSize) * lineHeight(textSize) + 10 / 72 };
}

function listItems(entries: ListEntry[], numbered: boolean, level: number): TextItem[] {
  const items: TextItem[] = [];
  for (const entry of entries) {
    const indent = 0.4 * (level + 1);
    const text = xmlSafeText(entry.text);
    const plain = inlineSpans(text)
      .map((span) => span.text)
      .join('');
    items.push({
      runs: spanRuns(text, {
        bullet: numbered ? { type: 'number', style: level === 0 ? 'arabicPeriod' : 'alphaLcPeriod' } : true,
        indentLevel: level,
        paraSpaceAfter: 4,
      }),
      height: linesIn(plain, contentWidth - indent, textSize) * lineHeight(textSize) + 4 / 72,
    });
    items.push(...listItems(entry.items, numbered, Math.min(level + 1, 2)));
  }
  return items;
}

/**
 * Slides for one table, paged by measured row heights, the header row
 * repeated, the title saying which rows. A table too wide for the slide is
 * set smaller or shown in parts of columns (each repeating the key column),
 * and cells are cut so that every row fits the slide at its measured height.
 */
function addTableSlides(options: {
  pptx: Presentation;
  table: LoadedTable;
  text: TableText;
  title: string;
  subtitle: string | undefined;
  where: string;
  font: string;
}): {
  slides: number;
  notes: (string | undefined)[];
} {
  const { pptx, text, title, subtitle, where, font } = options;
  const padding = cellPad.x * 2 * 72 + 4;
  const planned = planTable({
    headers: text.headers,
    cells: text.headers.map((_, column) => text.cells.map((row) => row[column] ?? '')),
    available: contentWidth * 72,
    fontSize: tableSize,
    minFontSize: minTableSize,
    padding,
  });
  // A line under the title holds the caption and, for a table in parts or records, which columns or fields the slide shows.
  const top = subtitle === undefined && planned.parts.length === 1 ? body.top : body.top + 0.4;
  const room = body.bottom - top;
  const plan = planned.kind === 'records' ? slideRecordPlan({ text, plan: planned, room, padding }) : planned;
  const maxLines = Math.floor((room * maxRowShare * 72 - 2 * cellPad.y * 72) / (plan.fontSize * 1.22));
  const cut = cutPlanCells({ text, plan, maxLines, padding });
  const notes = [
    tablePlanNote({ plan, headers: text.headers, where, bodySize: tableSize, unit: 'slide' }),
    tallCellsNote(cut, { maxLines, room: 'half the slide', where }),
  ];
  if (plan.kind === 'records') return { slides: addRecordSlides({ pptx, text, plan, title, subtitle, top, font }), notes };
  const total = text.cells.length;
  let slides = 0;
  for (const [partIndex, part] of plan.parts.entries()) {
    const colW = part.widths.map((points) => points / 72);
    const pick = (row: string[]) => part.columns.map((column) => row[column] ?? '');
    const numeric = part.columns.map((column) => text.numeric[column] === true);
    const measure = (cells: string[]) => rowHeight({ cells, widths: colW, fontSize: plan.fontSize, pointsPerUnit: 72, padX: cellPad.x, padY: cellPad.y });
    const headerHeight = measure(pick(text.headers));
    const heights = text.cells.map((row) => measure(pick(row)));
    const pages = pageRows({ heights, header: headerHeight, available: room });
    const header = pick(text.headers).map((value, at) => ({
      text: value,
      options: { bold: true, fill: { color: 'D9E2F3' }, ...(numeric[at] === true ? { align: 'right' } : {}) },
    }));
    const columns =
      plan.parts.length > 1 ? `Part ${partIndex + 1} of ${plan.parts.length}: ${partColumns({ plan, part: partIndex, headers: text.headers })}` : '';
    for (const [first, end] of pages) {
      const which =
        total === 0
          ? 'no rows'
          : end - first === 1
            ? `row ${formatCount(end)} of ${formatCount(total)}`
            : `rows ${formatCount(first + 1)}–${formatCount(end)} of ${formatCount(total)}`;
      const added = pptx.addSlide({ masterName: master });
      added.addText(`${title} (${which})`, { placeholder: 'title' });
      const line = [subtitle, columns].filter((part) => part !== undefined && part !== '').join(' · ');
      if (line !== '') addSlideLine(added, line, font);
      const rows = text.cells
        .slice(first, end)
        .map((row) => pick(row).map((value, at) => ({ text: value, options: numeric[at] === true ? { align: 'right' } : {} })));
      added.addTable([header, ...rows] as TableRows, {
        x: slide.margin,
        y: top,
        w: contentWidth,
        colW,
        rowH: [headerHeight, ...heights.slice(first, end)],
        fontFace: font,
        fontSize: plan.fontSize,
        valign: 'top',
        border: { type: 'solid', pt: 0.5, color: 'A6A6A6' },
        autoPage: false,
      });
      slides += 1;
    }
  }
  return { slides, notes };
}

/** A figure fitted under the title (and its caption), centred, never larger than 96 pixels an inch. */
function addFigureSlide(options: { target: Slide; figure: FigureBlock; caption: string | undefined; font: string }): void {
  const { target, figure, caption, font } = options;
  const captionHeight = caption === undefined ? 0 : 0.4;
  const maxHeight = body.bottom - body.top - captionHeight;
  const scale = Math.min(1 / 96, contentWidth / figure.width, maxHeight / figure.height);
  const width = figure.width * scale;
  const height = figure.height * scale;
  const base64 = Buffer.from(figure.data.buffer, figure.data.byteOffset, figure.data.byteLength).toString('base64');
  const data = `image/${figure.format === 'jpg' ? 'jpeg' : 'png'};base64,${base64}`;
  target.addImage({ data, x: slide.margin + (contentWidth - width) / 2, y: body.top, w: width, h: height });
  if (caption !== undefined) {
    target.addText(xmlSafeText(caption), {
      x: slide.margin,
      y: body.top + height + 0.05,
      w: contentWidth,
      h: 0.35,
      fontFace: font,
      fontSize: 12,
      italic: true,
      align: 'center',
      color: '404040',
    });
  }
}
