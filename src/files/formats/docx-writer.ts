/** build_document as DOCX (docx library): a styled report with headings, formatted text, lists, images and tables sized to their content. */
import {
  AlignmentType,
  Document,
  ExternalHyperlink,
  Footer,
  HeadingLevel,
  LevelFormat,
  Packer,
  PageNumber,
  PageOrientation,
  Paragraph,
  ShadingType,
  Table,
  TextRun,
  type ParagraphChild,
} from 'docx';
import { defaultLocale } from '../columns/format-values.js';
import { inlineSpans } from '../layout/inline-text.js';
import { wantedWidth } from '../layout/column-widths.js';
import { planTable } from '../layout/table-plan.js';
import { SpillwayError } from '../../errors.js';
import type { DocumentBlock, FigureBlock, ListEntry } from './document-spec.js';
import { loadDocumentTables, tableCaption, type LoadedTable } from './document-tables.js';
import { cutCellsNote, cutPlanCells, tableText, tallCellsNote, type TableText } from './table-text.js';
import { partCaption, tablePlanNote } from './table-plan-note.js';
import { zoneNote } from '../columns/time-zone-label.js';
import { zoneOf } from './document-tables.js';
import { xmlSafeText } from './table-notes.js';
import { documentStyles } from './docx-styles.js';
import { defaultFontFamily } from '../../util/font-family-name.js';
import { widerFontNote } from './font-family.js';
import { figureHeightPoints, figureParagraphs, movedCaption, naturalScale, referenceParagraph } from './docx-figures.js';
import { figureItem, paragraphHeight, recordItem, tableItem } from './docx-heights.js';
import { recordGap, recordTable, wordTable } from './docx-tables.js';
import { placeFigures, type FlowItem } from '../layout/figure-placement.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { DocumentResult, DocumentTask, ProgressMessage } from '../pool/worker-task.js';

/** A DOCX table cell holds at most this many characters; longer ones are cut and the result says where. */
export const docxMaxCellChars = 1000;

const codeFont = 'Courier New';
/** Half-points: 9 pt tables (a wide table may go down to 7 pt). */
const tableSize = 18;
const minTableSize = 14;
/** A table row is never taller than this share of the page's text height: longer cells are cut. */
const maxRowShare = 1 / 3;
/** Single spacing in a cell, as a multiple of the font size (LibreOffice and Word draw Arial at about 1.15). */
const cellLineFactor = 1.22;
/** A4 in twips, 2 cm margins. */
const page = { short: 11906, long: 16838, margin: 1134 };
/** Word's default cell margins (108 twips each side) plus a little slack, in points. */
const cellPaddingPoints = 12;
const headingLevels = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;
/** A figure that does not fit the rest of its page is shrunk to fit when it keeps at least this share of its size; else the text after it flows in first. */
const minFigureScale = 0.7;

/** One paragraph, table or figure of the body, with its estimated height for placing figures. */
interface FlowEntry {
  item: FlowItem;
  nodes: (Paragraph | Table)[];
  block: number;
  figure?: { block: FigureBlock; scale: number };
}

export async function writeDocx(task: DocumentTask, progress: (message: ProgressMessage) => void): Promise<DocumentResult> {
  const { spec } = task;
  const tables = await loadDocumentTables({ spec, sources: task.sources, maxTableRows: task.maxTableRows, onProgress: progress });
  const locale = spec.locale ?? defaultLocale;
  const font = spec.fontFamily ?? task.fontFamily ?? defaultFontFamily;
  const texts = new Map<number, TableText>();
  for (const [index, table] of tables)
    texts.set(index, tableText({ columns: table.columns, rows: table.rows, locale, maxCellChars: docxMaxCellChars, ...zoneOf(spec) }));

  const portraitWidthPoints = (page.short - 2 * page.margin) / 20;
  const planFor = (text: TableText, available: number) =>
    planTable({ headers: text.headers, cells: columnsOf(text), available, fontSize: tableSize / 2, minFontSize: minTableSize / 2, padding: cellPaddingPoints });
  // A table laid out one record per block even on landscape pages reads as well in portrait.
  const tooWide = [...texts.values()].some(
    (text) =>
      wantedWidth({ headers: text.headers, cells: columnsOf(text), fontSize: tableSize / 2, padding: cellPaddingPoints }) > portraitWidthPoints * 1.15 &&
      planFor(text, (page.long - 2 * page.margin) / 20).kind !== 'records',
  );
  const landscape = spec.orientation === 'landscape' || (spec.orientation !== 'portrait' && tooWide);
  const textWidthTwips = (landscape ? page.long : page.short) - 2 * page.margin;
  const textHeightPoints = ((landscape ? page.short : page.long) - 2 * page.margin) / 20;
  const notes: string[] = [];

  const width = textWidthTwips / 20;
  const flow: FlowEntry[] = [];
  const add = (item: FlowItem, nodes: (Paragraph | Table)[], block = -1) => flow.push({ item, nodes, block });
  add({ kind: 'heading', height: paragraphHeight({ text: spec.title, width, style: 'title' }) }, [
    new Paragraph({ text: xmlSafeText(spec.title), heading: HeadingLevel.TITLE }),
  ]);
  if (spec.subtitle !== undefined)
    add({ kind: 'heading', height: paragraphHeight({ text: spec.subtitle, width, style: 'subtitle' }) }, [
      new Paragraph({ text: xmlSafeText(spec.subtitle), style: 'Subtitle' }),
    ]);
  let lists = 0;
  for (const [index, block] of spec.blocks.entries()) {
    switch (block.type) {
      case 'heading':
        add({ kind: 'heading', height: paragraphHeight({ text: block.text, width, style: `heading${block.level}` }) }, [
          new Paragraph({ text: xmlSafeText(block.text), heading: headingLevels[block.level], keepNext: true }),
        ]);
        break;
      case 'paragraph':
        for (const part of block.text.split(/\n\s*\n/))
          add({ kind: 'text', height: paragraphHeight({ text: part, width, style: 'body' }) }, [new Paragraph({ children: inlineRuns(part) })]);
        break;
      case 'bullets':
      case 'numbered':
        lists += 1;
        for (const entry of listParagraphs(block, lists))
          add({ kind: 'text', height: paragraphHeight({ text: entry.text, width: width - 36 * (entry.level + 1), style: 'listItem' }) }, [entry.paragraph]);
        break;
      case 'table': {
        const table = tables.get(index) as LoadedTable;
        const text = texts.get(index) as TableText;
        const where = `The table in blocks[${index}]`;
        const plan = planFor(text, width);
        const maxLines = Math.floor((textHeightPoints * maxRowShare) / (plan.fontSize * cellLineFactor));
        const caption = xmlSafeText(tableCaption(block, table));
        const cut = cutPlanCells({ text, plan, maxLines, padding: cellPaddingPoints });
        if (plan.kind === 'records')
          text.cells.forEach((_, row) =>
            add(recordItem({ text, plan, row, width, padding: cellPaddingPoints }), [
              row === 0
                ? new Paragraph({ text: partCaption({ caption, plan, part: 0, headers: text.headers }), style: 'Caption', keepNext: true })
                : recordGap(),
              recordTable({ text, plan, row }),
            ]),
          );
        else
          for (const [part, columns] of plan.parts.entries()) {
            add(tableItem({ text, part: columns, fontSize: plan.fontSize, width, padding: cellPaddingPoints }), [
              new Paragraph({ text: partCaption({ caption, plan, part, headers: text.headers }), style: 'Caption', keepNext: true }),
              wordTable(text, columns, plan.fontSize),
            ]);
          }
        if (table.rows.length === 0)
          add({ kind: 'text', height: paragraphHeight({ text: '(no rows)', width, style: 'body' }) }, [
            new Paragraph({ children: [new TextRun({ text: '(no rows)', italics: true })] }),
          ]);
        const planNote = tablePlanNote({ plan, headers: text.headers, where, bodySize: tableSize / 2, unit: 'page' });
        if (planNote !== undefined) notes.push(planNote);
        const tall = tallCellsNote(cut, { maxLines, room: 'a third of the page', where });
        if (tall !== undefined) notes.push(tall);
        const zones = zoneNote({ headers: table.columns.map((column) => column.header), zoned: text.zoned, where, ...zoneOf(spec) });
        if (zones !== undefined) notes.push(zones);
        break;
      }
      case 'figure': {
        const scale = naturalScale(block, textWidthTwips);
        const item = figureItem({ height: figureHeightPoints(block, scale), title: block.title, width });
        flow.push({ item, nodes: [], block: index, figure: { block, scale } });
        break;
      }
      case 'chart':
      case 'image':
        // build_document turns these into figures before the task reaches a worker.
        throw new SpillwayError('INTERNAL', `A ${block.type} block reached the DOCX writer unresolved.`);
    }
  }
  const children = placedChildren({ flow, pageHeight: textHeightPoints, width, notes });

  const document = new Document({
    title: xmlSafeText(spec.title),
    creator: 'spillway',
    styles: documentStyles(font),
    numbering: { config: numberingConfig(lists) },
    sections: [
      {
        properties: {
          page: {
            size: { width: page.short, height: page.long, orientation: landscape ? PageOrientation.LANDSCAPE : PageOrientation.PORTRAIT },
            margin: { top: page.margin, bottom: page.margin, left: page.margin, right: page.margin },
          },
        },
        footers: {
          default: new Footer({
            children: [
              new Paragraph({
                alignment: AlignmentType.CENTER,
                children: [new TextRun({ children: ['Page ', PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES], size: 16, color: '666666' })],
              }),
            ],
          }),
        },
        children,
      },
    ],
  });
  const bytes = await Packer.toBuffer(document);
  const output = await openOutput(task.output);
  try {
    await writeChunk(output.pending.stream, bytes);
    const file = await output.commit();
    const tableFacts = [...tables.values()].map((table) => ({ source: table.source, rows: table.rows.length, columns: table.columns, stats: table.stats }));
    for (const [index, text] of texts) {
      const note = cutCellsNote(text.cut, docxMaxCellChars, `The table in blocks[${index}]`);
      if (note !== undefined) notes.unshift(note);
    }
    if (landscape && spec.orientation === undefined)
      notes.push('The pages are landscape because a table is too wide for portrait; pass "orientation": "portrait" in the spec to keep portrait.');
    const wider = widerFontNote(font, 'The document');
    if (wider !== undefined) notes.push(wider);
    return {
      ...file,
      rows: tableFacts.reduce((sum, table) => sum + table.rows, 0),
      tables: tableFacts,
      notes,
      orientation: landscape ? 'landscape' : 'portrait',
    };
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/**
 * The body in page order: a figure that does not fit under the text before it
 * is shrunk to fit (to no less than {@link minFigureScale}) or, when that is
 * not enough, the text after it flows in first and a reference line stays
 * where it was asked for (layout/figure-placement.ts).
 */
function placedChildren(options: { flow: FlowEntry[]; pageHeight: number; width: number; notes: string[] }): (Paragraph | Table)[] {
  const { flow, pageHeight, width, notes } = options;
  const referenceHeight = paragraphHeight({ text: 'Figure 10 (a title of a few words) follows below.', width, style: 'caption' });
  const placement = placeFigures({ items: flow.map((entry) => entry.item), pageHeight, minScale: minFigureScale, referenceHeight });
  const numbers = new Map<number, number>();
  flow.forEach((entry, index) => {
    if (entry.figure !== undefined) numbers.set(index, numbers.size + 1);
  });
  const children: (Paragraph | Table)[] = [];
  for (const index of placement.order) {
    const entry = flow[index] as FlowEntry;
    const before = flow[index - 1];
    if (placement.moved.has(index - 1) && before?.figure !== undefined) {
      const { label } = movedCaption(before.figure.block, numbers.get(index - 1) ?? 0);
      children.push(referenceParagraph(label, before.figure.block.title));
    }
    if (entry.figure === undefined) {
      children.push(...entry.nodes);
      continue;
    }
    const { block, scale } = entry.figure;
    const placed = placement.scales.get(index) ?? 1;
    const where = `The figure in blocks[${entry.block}]`;
    if (placement.moved.has(index)) {
      const { label, caption } = movedCaption(block, numbers.get(index) ?? 0);
      children.push(...figureParagraphs(block, scale, caption));
      notes.push(
        `${where} did not fit under the text on its page, so the text after it comes first and the figure starts the next page as "${label}"; a line where it was asked for points to it.`,
      );
      continue;
    }
    children.push(...figureParagraphs(block, scale * placed, block.title));
    if (placed < 1) notes.push(`${where} is shown at ${Math.round(placed * 100)}% of its size, so that it fits under the text on its page.`);
  }
  return children;
}

/** The cells by column, every row: one longer ID in the last row must not wrap. */
function columnsOf(text: TableText): string[][] {
  return text.headers.map((_, column) => text.cells.map((row) => row[column] ?? ''));
}

/** One numbering definition per list block, so every numbered list starts at 1. */
function numberingConfig(lists: number) {
  const formats = [LevelFormat.DECIMAL, LevelFormat.LOWER_LETTER, LevelFormat.LOWER_ROMAN];
  const bullets = ['•', '◦', '▪'];
  const config = [];
  for (let list = 1; list <= lists; list += 1) {
    config.push({
      reference: `numbered-${list}`,
      levels: formats.map((format, level) => ({
        level,
        format,
        text: `%${level + 1}.`,
        alignment: AlignmentType.START,
        style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
      })),
    });
    config.push({
      reference: `bullets-${list}`,
      levels: bullets.map((text, level) => ({
        level,
        format: LevelFormat.BULLET,
        text,
        alignment: AlignmentType.START,
        style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
      })),
    });
  }
  return config;
}

function listParagraphs(
  block: Extract<DocumentBlock, { type: 'bullets' | 'numbered' }>,
  list: number,
): { paragraph: Paragraph; text: string; level: number }[] {
  const reference = `${block.type}-${list}`;
  const paragraphs: { paragraph: Paragraph; text: string; level: number }[] = [];
  const walk = (entries: ListEntry[], level: number) => {
    for (const entry of entries) {
      paragraphs.push({
        paragraph: new Paragraph({ children: inlineRuns(entry.text), numbering: { reference, level }, spacing: { after: 40 } }),
        text: entry.text,
        level,
      });
      walk(entry.items, Math.min(level + 1, 2));
    }
  };
  walk(block.items, 0);
  return paragraphs;
}

function inlineRuns(text: string): ParagraphChild[] {
  return inlineSpans(xmlSafeText(text))
    .map((span) => {
      const lines = span.text.split('\n');
      const runs = lines.map(
        (line, at) =>
          new TextRun({
            text: line,
            ...(at > 0 ? { break: 1 } : {}),
            ...(span.bold === true ? { bold: true } : {}),
            ...(span.italic === true ? { italics: true } : {}),
            ...(span.code === true ? { font: codeFont, shading: { type: ShadingType.CLEAR, fill: 'F2F2F2', color: 'auto' } } : {}),
            ...(span.link !== undefined ? { style: 'Hyperlink', color: '0563C1', underline: {} } : {}),
          }),
      );
      return span.link === undefined ? runs : [new ExternalHyperlink({ link: span.link, children: runs })];
    })
    .flat();
}
