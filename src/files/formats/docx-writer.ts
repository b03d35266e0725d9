/** build_document as DOCX (docx library): Word headings, bullets, tables with a repeating header row. */
import { AlignmentType, Document, HeadingLevel, ImageRun, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { SpillwayError } from '../../errors.js';
import type { FigureBlock } from './document-spec.js';
import { loadDocumentTables, type LoadedTable } from './document-tables.js';
import { displayText, xmlSafeText, numericColumns } from './table-notes.js';
import { openOutput, writeChunk } from '../pool/worker-output.js';
import type { DocumentResult, DocumentTask, ProgressMessage } from '../pool/worker-task.js';

const headingLevels = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

export async function writeDocx(task: DocumentTask, progress: (message: ProgressMessage) => void): Promise<DocumentResult> {
  const tables = await loadDocumentTables({ spec: task.spec, sources: task.sources, maxTableRows: task.maxTableRows, onProgress: progress });
  const children: (Paragraph | Table)[] = [new Paragraph({ text: xmlSafeText(task.spec.title), heading: HeadingLevel.TITLE })];
  if (task.spec.subtitle !== undefined) children.push(new Paragraph({ children: [new TextRun({ text: xmlSafeText(task.spec.subtitle), italics: true, size: 28 })] }));
  for (const [index, block] of task.spec.blocks.entries()) {
    switch (block.type) {
      case 'heading':
        children.push(new Paragraph({ text: xmlSafeText(block.text), heading: headingLevels[block.level] }));
        break;
      case 'paragraph':
        children.push(...textParagraphs(block.text));
        break;
      case 'bullets':
        for (const item of block.items) children.push(new Paragraph({ text: xmlSafeText(item), bullet: { level: 0 } }));
        break;
      case 'table': {
        const table = tables.get(index) as LoadedTable;
        if (block.title !== undefined) children.push(new Paragraph({ children: [new TextRun({ text: xmlSafeText(block.title), bold: true })], keepNext: true }));
        children.push(wordTable(table));
        if (table.rows.length === 0) children.push(new Paragraph({ children: [new TextRun({ text: '(no rows)', italics: true })] }));
        break;
      }
      case 'figure':
        children.push(...figureParagraphs(block));
        break;
      case 'chart':
      case 'image':
        // build_document turns these into figures before the task reaches a worker.
        throw new SpillwayError('INTERNAL', `A ${block.type} block reached the DOCX writer unresolved.`);
    }
  }
  const document = new Document({ title: xmlSafeText(task.spec.title), creator: 'spillway', sections: [{ children }] });
  const bytes = await Packer.toBuffer(document);
  const output = await openOutput(task.output);
  try {
    await writeChunk(output.pending.stream, bytes);
    const file = await output.commit();
    const tableFacts = [...tables.values()].map((table) => ({ source: table.source, rows: table.rows.length, columns: table.columns, stats: table.stats }));
    return { ...file, rows: tableFacts.reduce((sum, table) => sum + table.rows, 0), tables: tableFacts, notes: [] };
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/** Fits a page's text width (6 inches at 96 px an inch) and most of its height; never enlarged. */
const figureBox = { width: 600, height: 720 };

/** A figure as a centred picture, its title below in bold. */
function figureParagraphs(figure: FigureBlock): Paragraph[] {
  const scale = Math.min(1, figureBox.width / figure.width, figureBox.height / figure.height);
  const transformation = { width: Math.round(figure.width * scale), height: Math.round(figure.height * scale) };
  const picture = new ImageRun({ type: figure.format, data: figure.data, transformation });
  const paragraphs = [new Paragraph({ children: [picture], alignment: AlignmentType.CENTER, keepNext: figure.title !== undefined })];
  if (figure.title === undefined) return paragraphs;
  const caption = new TextRun({ text: xmlSafeText(figure.title), bold: true });
  return [...paragraphs, new Paragraph({ children: [caption], alignment: AlignmentType.CENTER })];
}

/** A paragraph block: blank lines separate paragraphs; single line breaks stay breaks. */
function textParagraphs(text: string): Paragraph[] {
  return xmlSafeText(text)
    .split(/\n\s*\n/)
    .map((part) => new Paragraph({ children: part.split('\n').map((line, at) => new TextRun({ text: line, ...(at > 0 ? { break: 1 } : {}) })) }));
}

function wordTable(table: LoadedTable): Table {
  const numeric = numericColumns(table.columns.length, table.rows);
  const cell = (text: string, options: { bold?: boolean; right?: boolean }) =>
    new TableCell({
      children: [
        new Paragraph({
          children: [new TextRun({ text: xmlSafeText(text), ...(options.bold ? { bold: true } : {}) })],
          ...(options.right ? { alignment: AlignmentType.RIGHT } : {}),
        }),
      ],
    });
  const header = new TableRow({ tableHeader: true, cantSplit: true, children: table.columns.map((column) => cell(column.header, { bold: true })) });
  const rows = table.rows.map((row) => new TableRow({ cantSplit: true, children: row.map((value, index) => cell(displayText(value), { right: numeric[index] === true })) }));
  return new Table({ rows: [header, ...rows], width: { size: 100, type: WidthType.PERCENTAGE } });
}
