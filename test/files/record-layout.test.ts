import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxContinuedParts, planTable } from '../../src/files/layout/table-plan.js';
import { textEms } from '../../src/files/layout/text-width.js';
import { veryWideRows, wideRows } from '../fixtures/wide-table.js';
import { readPdf, renderPdf, wordsOutsidePage, type PdfPage } from '../helpers/render.js';
import { call, ok, outputPath, renderHost, spillRows, zipText } from './helpers.js';

const padding = 12;

function cellsOf(rows: Record<string, unknown>[]): { headers: string[]; cells: string[][] } {
  const headers = Object.keys(rows[0] ?? {});
  return { headers, cells: headers.map((header) => rows.map((row) => (row[header] === null ? '' : String(row[header])))) };
}

test(`a table that would need more than ${maxContinuedParts} parts of columns is laid out one record per block; 25 columns stay in parts`, () => {
  const wide = cellsOf(veryWideRows(50, 300));
  const plan = planTable({ ...wide, available: 481, fontSize: 9, minFontSize: 7, padding });
  assert.equal(plan.kind, 'records');
  assert.ok(plan.parts.length > maxContinuedParts, `the continuation plan it replaces has ${plan.parts.length} parts`);
  const [field, value] = plan.record?.widths ?? [0, 0];
  assert.ok(Math.abs(field + value - 481) < 1e-6, 'the block spans the text width');
  for (const header of wide.headers) assert.ok(textEms(header) * 1.1 * 9 + padding <= field + 1e-6, `the field name "${header}" fits its column on one line`);
  assert.ok(value > 2 * field, 'the values get most of the width');

  const some = cellsOf(wideRows(50, 300));
  assert.equal(planTable({ ...some, available: 770, fontSize: 9, minFontSize: 7, padding }).kind, 'continued');
  assert.equal(planTable({ ...wide, available: 481, fontSize: 9, minFontSize: 7, padding, maxParts: 99 }).kind, 'continued', 'maxParts moves the threshold');
  const empty = { headers: wide.headers, cells: wide.headers.map(() => []) };
  assert.equal(
    planTable({ ...empty, available: 481, fontSize: 9, minFontSize: 7, padding }).kind,
    'continued',
    'a table without rows keeps its header in parts',
  );
});

/** Words of the rendered pages that are letters only: each must be a whole word of the source, not a piece of one. */
function brokenWords(pages: PdfPage[], known: Set<string>): string[] {
  const broken = new Set<string>();
  for (const page of pages) for (const word of page.words) if (/^[A-Za-z_]{2,}$/.test(word.text) && !known.has(word.text)) broken.add(word.text);
  return [...broken];
}

test('rendered by LibreOffice (slow: two office conversions): 40 columns × 30 rows with 2,000-character notes are laid out one record per block in DOCX and PPTX, every field inside the page', async (t) => {
  const rendering = await renderHost(t, 'spillway-records-');
  if (rendering === undefined) return;
  const { env, pdfDir } = rendering;
  const rows = veryWideRows(30);
  const source = await spillRows(env, rows);
  const spec = { title: 'Orders with 40 columns', blocks: [{ type: 'table', source, title: 'Orders' }] };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'records.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'records-deck.pptx' }));
  for (const value of [docx, pptx]) {
    assert.ok(
      value.notes?.some((note) => /records laid out one per block: 40 columns do not fit .* headed by its "order_id"/.test(note)),
      `the result says the plan: ${JSON.stringify(value.notes)}`,
    );
    assert.ok(
      value.notes?.some((note) => /cut with "…"/.test(note)),
      'long notes are cut, and the result says so',
    );
  }
  assert.equal(docx.orientation, 'portrait', 'blocks of two columns need no landscape pages');
  // Read back without the docx library: one two-column table a record, its first line spanning both.
  const xml = await zipText(outputPath(env, docx.path), 'word/document.xml');
  assert.equal(xml.match(/<w:tbl>/g)?.length, rows.length);
  assert.equal(xml.match(/<w:gridSpan w:val="2"\/>/g)?.length, rows.length);

  const [docxPdf, pptxPdf] = await renderPdf([outputPath(env, docx.path), outputPath(env, pptx.path)], pdfDir);
  const known = new Set<string>();
  const learn = (text: string) => {
    for (const word of text.split(/[^A-Za-z_]+/)) if (word !== '') known.add(word);
  };
  for (const row of rows) for (const [key, value] of Object.entries(row)) learn(`${key} ${String(value)}`);
  learn('Orders with columns one block per row do not fit across the page One Block Per Row fields of Page UTC true false');
  learn('Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec AM PM');
  for (const [name, pdf] of [
    ['docx', docxPdf],
    ['pptx', pptxPdf],
  ] as const) {
    const pages = await readPdf(pdf as string);
    const words = pages.flatMap((page) => page.words.map((word) => word.text));
    assert.deepEqual(wordsOutsidePage(pages), [], `${name}: every word inside its page`);
    assert.deepEqual(brokenWords(pages, known), [], `${name}: no word broken inside a cell`);
    // LibreOffice drops text clipped off a slide: a field name present once a record is a line that fits.
    for (const field of ['created_at', 'tracking_number', 'billing_street', 'return_reason'])
      assert.equal(words.filter((word) => word === field).length, rows.length, `${name}: every record shows "${field}"`);
    for (const row of rows) assert.ok(words.includes(String(row.order_id)), `${name}: record ${String(row.order_id)} is there`);
    for (const row of rows.filter((_, index) => index % 5 === 0))
      assert.ok(words.includes(String(row.note).split(' ')[0] ?? ''), `${name}: the cut note of ${String(row.order_id)} still starts its line`);
    // A hand-made layout: 39 one-line fields, about 12.5 pt a line on a 728 pt page, and in every fifth
    // record a note cut to a third of a page; on slides three columns of 13 fields, one slide a record.
    const estimate = name === 'docx' ? Math.ceil((rows.length * 39 * 12.5 + (rows.length / 5) * 243) / 728) : 1 + rows.length;
    assert.ok(pages.length <= 2 * estimate && pages.length >= estimate / 2, `${name}: ${pages.length} pages, estimate ${estimate}`);
  }
});
