/** Tables in build_document's DOCX: a table (or one part of its columns) sized by the plan, or one record per block. */
import { AlignmentType, Paragraph, ShadingType, Table, TableCell, TableLayoutType, TableRow, TextRun, WidthType } from 'docx';
import type { TablePlan } from '../layout/table-plan.js';
import type { TableText } from './table-text.js';

const headerFill = 'D9E2F3';
const fieldFill = 'F2F2F2';

/** A cell's text: a line break in a cell stays a line break (a new paragraph would add spacing). */
function cellParagraph(value: string, options: { size: number; bold?: boolean; right?: boolean }): Paragraph {
  const { size, bold = false, right = false } = options;
  return new Paragraph({
    spacing: { after: 0, line: 240 },
    ...(right ? { alignment: AlignmentType.RIGHT } : {}),
    children: value.split('\n').map((line, index) => new TextRun({ text: line, size, ...(index > 0 ? { break: 1 } : {}), ...(bold ? { bold: true } : {}) })),
  });
}

function cell(value: string, options: { width: number; size: number; fill?: string; bold?: boolean; right?: boolean; span?: number }): TableCell {
  const { width, fill, span } = options;
  return new TableCell({
    width: { size: width, type: WidthType.DXA },
    ...(fill === undefined ? {} : { shading: { type: ShadingType.CLEAR, fill, color: 'auto' } }),
    ...(span === undefined ? {} : { columnSpan: span }),
    children: [cellParagraph(value, options)],
  });
}

/** One part of a table's columns at the plan's widths, the header row shaded and repeated on every page, rows never split. */
export function wordTable(text: TableText, part: TablePlan['parts'][number], fontSize: number): Table {
  const widths = part.widths.map((points) => Math.floor(points * 20));
  const size = Math.round(fontSize * 2);
  const pick = (row: string[]) => part.columns.map((column) => row[column] ?? '');
  const right = (at: number) => text.numeric[part.columns[at] ?? 0] === true;
  const header = new TableRow({
    tableHeader: true,
    cantSplit: true,
    children: pick(text.headers).map((value, at) => cell(value, { width: widths[at] ?? 0, size, fill: headerFill, bold: true, right: right(at) })),
  });
  const rows = text.cells.map(
    (row) => new TableRow({ cantSplit: true, children: pick(row).map((value, at) => cell(value, { width: widths[at] ?? 0, size, right: right(at) })) }),
  );
  return new Table({ rows: [header, ...rows], width: { size: sum(widths), type: WidthType.DXA }, columnWidths: widths, layout: TableLayoutType.FIXED });
}

/**
 * One record (row `row`) as a block of two columns, "field | value": a shaded
 * first line names the record by its key column and repeats when the block
 * runs onto the next page; the other columns follow, one a line, never split.
 */
export function recordTable(options: { text: TableText; plan: TablePlan; row: number }): Table {
  const { text, plan, row } = options;
  const widths = (plan.record?.widths ?? [0, 0]).map((points) => Math.floor(points * 20));
  const size = Math.round(plan.fontSize * 2);
  const key = plan.key ?? 0;
  const values = text.cells[row] ?? [];
  const heading = new TableRow({
    tableHeader: true,
    cantSplit: true,
    children: [cell(`${text.headers[key] ?? ''}: ${values[key] ?? ''}`, { width: sum(widths), size, fill: headerFill, bold: true, span: 2 })],
  });
  const lines = text.headers.flatMap((header, column) =>
    column === key
      ? []
      : [
          new TableRow({
            cantSplit: true,
            children: [
              cell(header, { width: widths[0] ?? 0, size, fill: fieldFill, bold: true }),
              cell(values[column] ?? '', { width: widths[1] ?? 0, size, right: false }),
            ],
          }),
        ],
  );
  return new Table({ rows: [heading, ...lines], width: { size: sum(widths), type: WidthType.DXA }, columnWidths: widths, layout: TableLayoutType.FIXED });
}

/** The small gap between two record blocks (two tables side by side would merge into one). */
export function recordGap(): Paragraph {
  return new Paragraph({ spacing: { before: 0, after: 0, line: 240 }, children: [new TextRun({ text: '', size: 12 })] });
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
