import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { chartPng } from '../fixtures/reference-images.js';
import { referenceRows, referenceSpec } from '../fixtures/reference-report.js';
import { readPdf, renderPdf, wordsOutsidePage, type PdfPage } from '../helpers/render.js';
import { call, ok, outputPath, spillRows, renderHost } from './helpers.js';

/** Sentences with numbered markers, long enough to need more than one slide. */
const longParagraph = Array.from({ length: 60 }, (_, index) => `Marker${index + 1} says the review found nothing unusual in this part of the month.`).join(' ');

function allText(pages: PdfPage[]): string {
  return pages.map((page) => page.text).join('\n');
}

test('rendered by LibreOffice, the reference report, deck and workbook show every row and heading, inside the page, with no path in a caption', async (t) => {
  const rendering = await renderHost(t, 'spillway-render-');
  if (rendering === undefined) return;
  const { env, pdfDir } = rendering;
  const rows = referenceRows(40);
  const source = await spillRows(env, rows);
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/chart.png'), chartPng());
  const spec = referenceSpec(source, rows.length) as { blocks: unknown[] };
  spec.blocks.push({ type: 'heading', text: 'Long notes' }, { type: 'paragraph', text: longParagraph });

  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'report.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'deck.pptx' }));
  const xlsx = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'orders.xlsx' }));
  assert.equal(docx.orientation, 'landscape', 'a ten-column table turns the pages landscape');
  const [reportPdf, deckPdf, sheetPdf] = await renderPdf(
    [docx.path, pptx.path, xlsx.path].map((relative) => outputPath(env, relative)),
    pdfDir,
  );

  for (const [name, pdf] of [
    ['report', reportPdf],
    ['deck', deckPdf],
  ] as const) {
    const pages = await readPdf(pdf as string);
    const text = allText(pages);
    assert.deepEqual(wordsOutsidePage(pages), [], `${name}: every word is inside its page`);
    // LibreOffice drops text clipped off a slide, so a row that is there is a row that fits.
    for (const row of rows) assert.ok(text.includes(String(row.order_id)), `${name}: order ${String(row.order_id)} is shown`);
    for (const heading of ['Orders, March 2026', 'Summary', 'Orders', 'Largest orders', 'Long notes'])
      assert.ok(text.includes(heading), `${name}: heading "${heading}"`);
    for (let marker = 1; marker <= 60; marker += 1)
      assert.match(text, new RegExp(`Marker${marker}\\b`), `${name}: the long paragraph is whole (Marker${marker})`);
    assert.doesNotMatch(text, /results\/|\.jsonl/, `${name}: no path in any caption`);
    assert.match(text, /€1,299\.88/, `${name}: money is formatted`);
    assert.doesNotMatch(text, /\*\*strong\*\*/, `${name}: inline marks are not printed`);
  }
  const deck = await readPdf(deckPdf as string);
  assert.ok(deck.length > 6, 'the deck pages its table and its long paragraph');
  deck.slice(1).forEach((page, index) => {
    const number = page.words.find((word) => word.text === String(index + 2) && word.yMin > page.height * 0.9 && word.xMin > page.width * 0.8);
    assert.ok(number, `slide ${index + 2} shows its number in the corner`);
  });
  const report = await readPdf(reportPdf as string);
  assert.ok(
    report.every((page, index) => page.text.includes(`Page ${index + 1} of ${report.length}`)),
    'the report footer numbers its pages',
  );
  assert.ok(report[0] !== undefined && report[0].width > report[0].height, 'the report pages are landscape');

  const sheet = allText(await readPdf(sheetPdf as string));
  for (const row of rows) assert.ok(sheet.includes(String(row.order_id)), `sheet: order ${String(row.order_id)}`);
  assert.match(sheet, /03\/01\/2026/, 'sheet: timestamps print as dates');
});
