/** build_document as DOCX (docx library): a styled report with headings, formatted text, lists, images and tables sized to their content. */
import {
  AlignmentType,
  Document,
  ExternalHyperlink,
  Footer,
  HeadingLevel,
  ImageRun,
  LevelFormat,
  LineRuleType,
  Packer,
  PageNumber,
  PageOrientation,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableLayoutType,
  TableRow,
  TextRun,
  WidthType,
  type ParagraphChild,
} from 'docx';
import { defaultLocale } from '../columns/format-values.js';
import { inlineSpans } from '../layout/inline-text.js';
import { wantedWidth } from '../layout/column-widths.js';
import { planTable, type TablePlan } from '../layout/table-plan.js';
import { SpillwayError } from '../../errors.js';
import type { DocumentBlock, FigureBlock, ListEntry } from './document-spec.js';
import { loadDocumentTables, tableCaption, type LoadedTable } from './document-tables.js';
import { cutCellsNote, cutPlanCells, tableText, tallCellsNote, type TableText } from './table-text.js';
import { partCaption, tablePlanNote } from './table-plan-note.js';
import { zoneNote } from '../columns/time-zone-label.js';
import { zoneOf } from './document-tables.js';
import { xmlSafeText } from './table-notes.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { DocumentResult, DocumentTask, ProgressMessage } from '../pool/worker-task.js';

/** A DOCX table cell holds at most this many characters; longer ones are cut and the result says where. */
export const docxMaxCellChars = 1000;

const font = 'Arial';
const codeFont = 'Courier New';
/** Half-points: 10 pt body, 9 pt tables (a wide table may go down to 7 pt). */
const bodySize = 20;
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
const headerFill = 'D9E2F3';

export async function writeDocx(task: DocumentTask, progress: (message: ProgressMessage) => void): Promise<DocumentResult> {
  const { spec } = task;
  const tables = await loadDocumentTables({ spec, sources: task.sources, maxTableRows: task.maxTableRows, onProgress: progress });
  const locale = spec.locale ?? defaultLocale;
  const texts = new Map<number, TableText>();
  for (const [index, table] of tables)
    texts.set(index, tableText({ columns: table.columns, rows: table.rows, locale, maxCellChars: docxMaxCellChars, ...zoneOf(spec) }));

  const portraitWidthPoints = (page.short - 2 * page.margin) / 20;
  const tooWide = [...texts.values()].some(
    (text) => wantedWidth({ headers: text.headers, cells: columnsOf(text), fontSize: tableSize / 2, padding: cellPaddingPoints }) > portraitWidthPoints * 1.15,
  );
  const landscape = spec.orientation === 'landscape' || (spec.orientation !== 'portrait' && tooWide);
  const textWidthTwips = (landscape ? page.long : page.short) - 2 * page.margin;
  const textHeightPoints = ((landscape ? page.short : page.long) - 2 * page.margin) / 20;
  const notes: string[] = [];

  const children: (Paragraph | Table)[] = [new Paragraph({ text: xmlSafeText(spec.title), heading: HeadingLevel.TITLE })];
  if (spec.subtitle !== undefined) children.push(new Paragraph({ text: xmlSafeText(spec.subtitle), style: 'Subtitle' }));
  let lists = 0;
  for (const [index, block] of spec.blocks.entries()) {
    switch (block.type) {
      case 'heading':
        children.push(new Paragraph({ text: xmlSafeText(block.text), heading: headingLevels[block.level], keepNext: true }));
        break;
      case 'paragraph':
        children.push(...textParagraphs(block.text));
        break;
      case 'bullets':
      case 'numbered':
        lists += 1;
        children.push(...listParagraphs(block, lists));
        break;
      case 'table': {
        const table = tables.get(index) as LoadedTable;
        const text = texts.get(index) as TableText;
        const where = `The table in blocks[${index}]`;
        const plan = planTable({
          headers: text.headers,
          cells: columnsOf(text),
          available: textWidthTwips / 20,
          fontSize: tableSize / 2,
          minFontSize: minTableSize / 2,
          padding: cellPaddingPoints,
        });
        const maxLines = Math.floor((textHeightPoints * maxRowShare) / (plan.fontSize * cellLineFactor));
        const caption = xmlSafeText(tableCaption(block, table));
        const cut = cutPlanCells({ text, plan, maxLines, padding: cellPaddingPoints });
        for (const [part, columns] of plan.parts.entries()) {
          children.push(new Paragraph({ text: partCaption({ caption, plan, part, headers: text.headers }), style: 'Caption', keepNext: true }));
          children.push(wordTable(text, columns, plan.fontSize));
        }
        if (table.rows.length === 0) children.push(new Paragraph({ children: [new TextRun({ text: '(no rows)', italics: true })] }));
        const planNote = tablePlanNote({ plan, headers: text.headers, where, bodySize: tableSize / 2, unit: 'page' });
        if (planNote !== undefined) notes.push(planNote);
        const tall = tallCellsNote(cut, { maxLines, room: 'a third of the page', where });
        if (tall !== undefined) notes.push(tall);
        const zones = zoneNote({ headers: table.columns.map((column) => column.header), zoned: text.zoned, where, ...zoneOf(spec) });
        if (zones !== undefined) notes.push(zones);
        break;
      }
      case 'figure':
        children.push(...figureParagraphs(block, textWidthTwips));
        break;
      case 'chart':
      case 'image':
        // build_document turns these into figures before the task reaches a worker.
        throw new SpillwayError('INTERNAL', `A ${block.type} block reached the DOCX writer unresolved.`);
    }
  }

  const document = new Document({
    title: xmlSafeText(spec.title),
    creator: 'spillway',
    styles: documentStyles(),
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

/** The cells by column, every row: one longer ID in the last row must not wrap. */
function columnsOf(text: TableText): string[][] {
  return text.headers.map((_, column) => text.cells.map((row) => row[column] ?? ''));
}

function documentStyles() {
  const heading = (id: string, name: string, size: number, before: number) => ({
    id,
    name,
    basedOn: 'Normal',
    next: 'Normal',
    quickFormat: true,
    run: { font, size, bold: true, color: '1F3864' },
    paragraph: { spacing: { before, after: 120 }, keepNext: true },
  });
  return {
    default: {
      document: { run: { font, size: bodySize }, paragraph: { spacing: { after: 120, line: 276, lineRule: LineRuleType.AUTO } } },
    },
    paragraphStyles: [
      {
        id: 'Title',
        name: 'Title',
        basedOn: 'Normal',
        next: 'Normal',
        quickFormat: true,
        run: { font, size: 48, bold: true, color: '1F3864' },
        paragraph: { spacing: { after: 120 } },
      },
      {
        id: 'Subtitle',
        name: 'Subtitle',
        basedOn: 'Normal',
        next: 'Normal',
        quickFormat: true,
        run: { font, size: 28, color: '595959' },
        paragraph: { spacing: { after: 360 } },
      },
      heading('Heading1', 'Heading 1', 32, 360),
      heading('Heading2', 'Heading 2', 26, 280),
      heading('Heading3', 'Heading 3', 22, 240),
      {
        id: 'Caption',
        name: 'Caption',
        basedOn: 'Normal',
        next: 'Normal',
        quickFormat: true,
        run: { font, size: 18, italics: true, color: '404040' },
        paragraph: { spacing: { before: 120, after: 80 } },
      },
    ],
  };
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

function listParagraphs(block: Extract<DocumentBlock, { type: 'bullets' | 'numbered' }>, list: number): Paragraph[] {
  const reference = `${block.type}-${list}`;
  const paragraphs: Paragraph[] = [];
  const walk = (entries: ListEntry[], level: number) => {
    for (const entry of entries) {
      paragraphs.push(new Paragraph({ children: inlineRuns(entry.text), numbering: { reference, level }, spacing: { after: 40 } }));
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

/** A paragraph block: blank lines separate paragraphs; single line breaks stay breaks. */
function textParagraphs(text: string): Paragraph[] {
  return text.split(/\n\s*\n/).map((part) => new Paragraph({ children: inlineRuns(part) }));
}

/** A figure (a chart or an image) centred at most the text width, never enlarged, its title below in the Caption style. */
function figureParagraphs(figure: FigureBlock, textWidthTwips: number): Paragraph[] {
  // docx sizes images in pixels at 96 to the inch: 15 twips a pixel.
  const scale = Math.min(1, textWidthTwips / 15 / figure.width, 620 / figure.height);
  const transformation = { width: Math.round(figure.width * scale), height: Math.round(figure.height * scale) };
  const run = new ImageRun({ type: figure.format, data: figure.data, transformation });
  // Single spacing set outright: LibreOffice lets an inline image in a paragraph without it grow upwards over what is above.
  const paragraphs = [
    new Paragraph({
      alignment: AlignmentType.CENTER,
      spacing: { before: 120, line: 240, lineRule: LineRuleType.AUTO },
      children: [run],
      keepNext: figure.title !== undefined,
    }),
  ];
  if (figure.title !== undefined) paragraphs.push(new Paragraph({ text: xmlSafeText(figure.title), style: 'Caption', alignment: AlignmentType.CENTER }));
  return paragraphs;
}

function wordTable(text: TableText, part: TablePlan['parts'][number], fontSize: number): Table {
  const widths = part.widths.map((points) => Math.floor(points * 20));
  const size = Math.round(fontSize * 2);
  const cell = (value: string, at: number, header: boolean) =>
    new TableCell({
      width: { size: widths[at] ?? 0, type: WidthType.DXA },
      ...(header ? { shading: { type: ShadingType.CLEAR, fill: headerFill, color: 'auto' } } : {}),
      children: [
        new Paragraph({
          spacing: { after: 0, line: 240 },
          ...(text.numeric[part.columns[at] ?? 0] === true ? { alignment: AlignmentType.RIGHT } : {}),
          // A line break in a cell stays a line break (a new paragraph would add spacing).
          children: value
            .split('\n')
            .map((line, index) => new TextRun({ text: line, size, ...(index > 0 ? { break: 1 } : {}), ...(header ? { bold: true } : {}) })),
        }),
      ],
    });
  const pick = (row: string[]) => part.columns.map((column) => row[column] ?? '');
  const header = new TableRow({ tableHeader: true, cantSplit: true, children: pick(text.headers).map((value, at) => cell(value, at, true)) });
  const rows = text.cells.map((row) => new TableRow({ cantSplit: true, children: pick(row).map((value, at) => cell(value, at, false)) }));
  return new Table({
    rows: [header, ...rows],
    width: { size: widths.reduce((sum, width) => sum + width, 0), type: WidthType.DXA },
    columnWidths: widths,
    layout: TableLayoutType.FIXED,
  });
}
