import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measureColumns } from '../../src/files/layout/column-widths.js';
import { displayCells, longestWordEms, textEms } from '../../src/files/layout/text-width.js';
import { readPdf, renderPdf, scriptFontsUnavailable, wordsOutsidePage, type PdfPage } from '../helpers/render.js';
import { call, ok, outputPath, spillRows, zipText, renderHost } from './helpers.js';

/** Chinese, Japanese, Korean, Hebrew, Arabic and emoji text beside Latin, as a customer table may hold it. */
const rows = [
  {
    id: 'A-001',
    name: '東京都渋谷区の株式会社サンプル',
    note: '请在周五之前回复。这是一个很长的中文备注。',
    hebrew: 'שלום עולם',
    arabic: 'مرحبا بالعالم',
    status: '✅ paid 🎉',
  },
  { id: 'A-002', name: '서울특별시 강남구', note: '納品は来週になります。', hebrew: 'תודה רבה', arabic: 'شكرا جزيلا', status: '👍🏽 shipped' },
  { id: 'A-003', name: 'Zoë Müller', note: 'Plain Latin text for comparison.', hebrew: 'ספר', arabic: 'كتاب', status: '❤️ open' },
];

test('widths of wide characters: a CJK character counts about two Latin ones, marks and joiners none, and Chinese breaks between characters', () => {
  assert.ok(textEms('東京都') >= 3 * 0.54 * 1.8, 'three ideographs are as wide as five or six Latin letters');
  assert.equal(displayCells('東京都 A'), 8, 'an XLSX width counts two cells per ideograph');
  assert.equal(displayCells('👍🏽'), 2, 'a skin tone modifies the emoji before it, no width of its own');
  assert.equal(textEms('❤️'), textEms('❤'), 'a variation selector has no width');
  assert.equal(textEms('é'), textEms('é'), 'a combining accent has no width');
  assert.equal(longestWordEms('東京都渋谷区'), 1, 'Chinese and Japanese text may break between any two characters');
  assert.equal(longestWordEms('서울특별시 강남구'), textEms('서울특별시'), 'Korean breaks at spaces');
  const [cjk, latin] = measureColumns({ headers: ['a', 'b'], cells: [['東京都渋谷区'], ['abcdef']], fontSize: 9, padding: 0 }).want;
  assert.ok((cjk ?? 0) > 1.8 * (latin ?? 0), `six ideographs want nearly twice six letters (${cjk} vs ${latin})`);
});

/** The words of all pages, with pdftotext's right-to-left runs (given in visual order) read back both ways. */
function wordsOf(pages: PdfPage[]): Set<string> {
  const words = new Set<string>();
  for (const page of pages) {
    for (const word of page.words) {
      const text = word.text.replaceAll(/[\u200e\u200f\u202a-\u202e,،]/g, '');
      words.add(text);
      words.add([...text].reverse().join(''));
    }
  }
  return words;
}

test('rendered by LibreOffice (slow: one office conversion of three files), CJK, Hebrew, Arabic and emoji cells show in DOCX, PPTX and XLSX, inside the page', async (t) => {
  const rendering = await renderHost(t, 'spillway-scripts-', scriptFontsUnavailable);
  if (rendering === undefined) return;
  const { env, pdfDir } = rendering;
  const source = await spillRows(env, rows);
  const spec = { title: 'Customers', blocks: [{ type: 'table', source, title: 'Mixed scripts' }] };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'scripts-report.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'scripts-deck.pptx' }));
  const xlsx = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'scripts-sheet.xlsx' }));

  // Excel's width unit is a digit: the 15-ideograph name needs about 30 of them.
  const sheetXml = await zipText(outputPath(env, xlsx.path), 'xl/worksheets/sheet1.xml');
  const nameWidth = Number(/<col min="2" max="2" width="([\d.]+)"/.exec(sheetXml)?.[1]);
  assert.ok(nameWidth >= 30, `the XLSX name column is wide enough for 15 ideographs (${nameWidth})`);

  const pdfs = await renderPdf(
    [docx.path, pptx.path, xlsx.path].map((relative) => outputPath(env, relative)),
    pdfDir,
  );
  const expected = ['서울특별시', '강남구', 'שלום', 'עולם', 'תודה', 'ספר', 'مرحبا', 'بالعالم', 'شكرا', 'كتاب', '✅', '🎉', 'paid', 'Müller'];
  for (const [name, pdf] of ['docx', 'pptx', 'xlsx'].map((format, index) => [format, pdfs[index] as string] as const)) {
    const pages = await readPdf(pdf);
    const words = wordsOf(pages);
    const text = pages.map((page) => page.text.replaceAll(/\s+/g, '')).join('');
    for (const word of expected) assert.ok(words.has(word), `${name}: "${word}" is rendered`);
    // CJK wraps between characters, so its text is whole once the line breaks are taken out.
    for (const cjk of ['東京都渋谷区の株式会社サンプル', '请在周五之前回复', '納品は来週になります。'])
      assert.ok(text.includes(cjk), `${name}: "${cjk}" is rendered whole`);
    assert.deepEqual(wordsOutsidePage(pages), [], `${name}: every word is inside its page`);
  }
});
