import assert from 'node:assert/strict';
import { test } from 'node:test';
import { longChinese, mixedScriptRows, mixedScriptWords } from '../fixtures/mixed-scripts-table.js';
import { readPdf, renderPdf, scriptFontsUnavailable, wordsOutsidePage, type PdfPage, type PdfWord } from '../helpers/render.js';
import { call, ok, outputPath, renderHost, spillRows } from './helpers.js';

/**
 * pdftotext gives a right-to-left run in visual order, its letters reversed:
 * this reads it back in logical order. The lam-alef ligature comes out as one
 * glyph in logical order inside the reversed run, so "لا" and "ال" count as one
 * key on both sides of a comparison.
 */
function logical(text: string): string {
  const read = /[\u0590-\u08ff]/u.test(text) ? [...text].reverse().join('') : text;
  return lamAlef(read);
}

function lamAlef(text: string): string {
  return text.replaceAll(/\u0644\u0627|\u0627\u0644/gu, '~');
}

const cjk = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]/u;
const columns = ['customer', 'city', 'note', 'status'] as const;

/** The header words of the table on a page (their boxes), or undefined when the page holds no table header. */
function headerBoxes(page: PdfPage): Map<string, PdfWord> | undefined {
  const customer = page.words.find((word) => word.text === 'customer');
  if (customer === undefined) return undefined;
  const boxes = new Map<string, PdfWord>();
  for (const name of columns) {
    const box = page.words.find((word) => word.text === name && Math.abs(word.yMin - customer.yMin) < 1);
    if (box !== undefined) boxes.set(name, box);
  }
  return boxes.size === columns.length ? boxes : undefined;
}

/**
 * CJK words that leave their column: a column runs from its header's left
 * edge to the next header's (cell padding on both sides), and a word belongs
 * to the columns whose cells hold it.
 */
function cjkOutsideColumns(page: PdfPage, headers: Map<string, PdfWord>): string[] {
  const top = headers.get('customer')?.yMax ?? 0;
  const outside: string[] = [];
  for (const word of page.words) {
    if (word.yMin < top || !cjk.test(word.text)) continue;
    const homes = columns.slice(0, -1).filter((name) => mixedScriptRows.some((row) => String(row[name]).replaceAll(/\s+/g, '').includes(word.text)));
    const inside = homes.some((name) => {
      const left = headers.get(name)?.xMin ?? 0;
      const right = headers.get(columns[columns.indexOf(name) + 1] ?? 'status')?.xMin ?? 0;
      return word.xMin >= left - 1 && word.xMax <= right + 0.5;
    });
    if (!inside) outside.push(`${word.text} [${word.xMin.toFixed(1)}–${word.xMax.toFixed(1)}] (${homes.join('/') || 'no column'})`);
  }
  return outside;
}

test('rendered by LibreOffice (slow: one office conversion of two files): a table in Chinese, Japanese, Korean, Hebrew, Arabic and emoji keeps every word, reads right-to-left where it should and stays inside its columns and slides', async (t) => {
  const rendering = await renderHost(t, 'spillway-mixed-', scriptFontsUnavailable);
  if (rendering === undefined) return;
  const { env, pdfDir } = rendering;
  const source = await spillRows(env, mixedScriptRows);
  const spec = { title: 'Customers', blocks: [{ type: 'table', source, title: 'Customers in many scripts' }] };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'mixed-report.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'mixed-deck.pptx' }));
  const pdfs = await renderPdf([outputPath(env, docx.path), outputPath(env, pptx.path)], pdfDir);

  for (const [name, pdf] of [
    ['docx', pdfs[0]],
    ['pptx', pdfs[1]],
  ] as const) {
    const pages = await readPdf(pdf as string);
    const words = new Set(pages.flatMap((page) => page.words.map((word) => logical(word.text.replaceAll(/[\u200e\u200f\u202a-\u202e,،]/g, '')))));
    // Chinese and Japanese break between characters: their runs are whole once the line breaks are taken out.
    const text = pages.map((page) => page.words.map((word) => word.text).join('')).join('');
    for (const run of mixedScriptWords.cjk) assert.ok(text.includes(run), `${name}: "${run}" is rendered (its glyphs mapped, not dropped)`);
    for (const word of [...mixedScriptWords.korean, ...mixedScriptWords.hebrew, ...mixedScriptWords.arabic, ...mixedScriptWords.latin])
      assert.ok(words.has(lamAlef(word)), `${name}: "${word}" is rendered`);
    // In the text layer: LibreOffice 7.4's PDF draws colour emoji as empty space (see docs/files.md), so no pixel check here.
    for (const sequence of mixedScriptWords.emoji) assert.ok(words.has(sequence), `${name}: ${sequence} is in the PDF text as one sequence`);
    // LibreOffice drops what is clipped off a slide, so every word present and inside the page is a row that fits.
    assert.deepEqual(wordsOutsidePage(pages), [], `${name}: every word is inside its page`);

    const tablePages = pages.flatMap((page) => {
      const headers = headerBoxes(page);
      return headers === undefined ? [] : [{ page, headers }];
    });
    assert.ok(tablePages.length >= 1, `${name}: the table's header is on a page`);
    for (const { page, headers } of tablePages) assert.deepEqual(cjkOutsideColumns(page, headers), [], `${name}: CJK text stays inside its column`);

    // A name of up to ten ideographs stays on one line (it may break between any two, but a lone last character reads badly).
    const lineWords = new Set(pages.flatMap((page) => page.words.map((word) => word.text)));
    for (const customer of ['北京星辰科技有限公司', '株式会社サンプル商事', '华南物流集团', '山田太郎'])
      assert.ok(lineWords.has(customer), `${name}: "${customer}" is on one line`);
    // The 65 ideographs without a space wrap into a few full lines of the note column, not one character a line.
    const longLines = pages.flatMap((page) => page.words).filter((word) => word.text.length >= 2 && longChinese.includes(word.text));
    assert.ok(longLines.length >= 1 && longLines.length <= 4, `${name}: the long Chinese note takes ${longLines.length} lines`);
    // A mixed cell reads right-to-left inside its Hebrew and Arabic runs: the first word of each run is drawn rightmost.
    const onLineOf = (anchor: string) => {
      const line = pages.flatMap((page) => page.words.filter((word) => word.text === anchor).map((found) => ({ page, found })))[0];
      return line?.page.words.filter((word) => Math.abs(word.yMin - line.found.yMin) < 1) ?? [];
    };
    const rightOf = (anchor: string, first: string, second: string) => {
      const line = onLineOf(anchor);
      const x = (word: string) => line.find((found) => logical(found.text) === lamAlef(word))?.xMin ?? Number.NaN;
      return x(first) > x(second);
    };
    assert.ok(rightOf('from', 'חברת', 'אור'), `${name}: "from חברת אור shipped" reads right-to-left inside its Hebrew run`);
    assert.ok(rightOf('INV-2026-0042', 'للعميل', 'مكتبة'), `${name}: "للعميل مكتبة القاهرة" reads right-to-left inside its Arabic run`);
  }
});
