import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { measureColumns } from '../../src/files/layout/column-widths.js';
import { cutToLines } from '../../src/files/layout/table-pages.js';
import { planTable } from '../../src/files/layout/table-plan.js';
import { textEms, wrappedLines } from '../../src/files/layout/text-width.js';
import { tableText } from '../../src/files/formats/table-text.js';
import { wideRows } from '../fixtures/wide-table.js';
import { readPdf, renderPdf, wordsOutsidePage, type PdfPage } from '../helpers/render.js';
import { call, filesHost, ok, outputPath, spillRows, xmlUnescape, zipText, renderHost } from './helpers.js';

const padding = 12;

/** Every token of at most `maxEms` ems in a column's cells fits its width: IDs, dates and amounts never wrap. */
function assertTokensFit(headers: string[], cells: string[][], plan: ReturnType<typeof planTable>): void {
  for (const part of plan.parts) {
    part.columns.forEach((column, at) => {
      const inner = ((part.widths[at] ?? 0) - padding) / plan.fontSize;
      for (const text of [...(cells[column] ?? [])]) {
        for (const token of text.split(/\s+/)) {
          if (textEms(token) <= 14) assert.ok(textEms(token) <= inner + 1e-9, `"${token}" fits column "${headers[column]}" (${inner.toFixed(2)} ems)`);
        }
      }
    });
  }
}

test('a table too wide for the page is planned in parts that repeat the key column; a moderately wide one is set smaller; no token up to 14 ems is broken', () => {
  const rows = wideRows(200, 300);
  const headers = Object.keys(rows[0] ?? {});
  const cells = headers.map((header) => rows.map((row) => (row[header] === null ? '' : String(row[header]))));
  const plan = planTable({ headers, cells, available: 770, fontSize: 9, minFontSize: 7, padding });
  assert.equal(plan.kind, 'continued');
  assert.equal(plan.key, 0, 'order_id is the key');
  assert.ok(plan.parts.length >= 2 && plan.parts.length <= 4, `${plan.parts.length} parts`);
  const sizes = plan.parts.map((part) => part.columns.length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 3, `parts are even: ${sizes.join(', ')}`);
  assert.deepEqual(
    plan.parts.flatMap((part, index) => (index === 0 ? part.columns : part.columns.slice(1))),
    headers.map((_, column) => column),
    'every column once, in order',
  );
  for (const part of plan.parts.slice(1)) assert.equal(part.columns[0], 0, 'each later part leads with the key');
  for (const part of plan.parts) {
    assert.ok(part.widths.reduce((sum, width) => sum + width, 0) <= 770 + 1e-6);
    for (const width of part.widths) assert.ok(width >= Math.min(plan.minimumWidth, 40), `no column is narrower than its content or the minimum (${width})`);
  }
  assertTokensFit(headers, cells, plan);

  const some = headers.slice(0, 12);
  const smaller = planTable({ headers: some, cells: cells.slice(0, 12), available: 770, fontSize: 9, minFontSize: 7, padding });
  assert.equal(smaller.kind, 'smaller-font');
  assert.ok(smaller.fontSize < 9 && smaller.fontSize >= 7);
  assertTokensFit(some, cells.slice(0, 12), smaller);

  // A 5,000-row table whose IDs grow a digit late: the longest one decides the width.
  const ids = Array.from({ length: 5000 }, (_, index) => String(index + 1));
  const [need] = measureColumns({ headers: ['id'], cells: [ids], fontSize: 9, padding }).need;
  assert.ok(((need ?? 0) - padding) / 9 >= textEms('5000'));
});

test('planned widths never break a short token, for any table (property)', () => {
  const token = fc.oneof(
    fc.integer({ min: 0, max: 10 ** 9 }).map(String),
    fc.stringMatching(/^[A-Za-z]{1,18}$/),
    fc.constantFrom('2026-03-01', 'Mar 1, 2026', '€1,299.88', 'SKU-000123', '1Z999000007777'),
  );
  const cell = fc.array(token, { minLength: 1, maxLength: 6 }).map((tokens) => tokens.join(' '));
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 30 })
        .chain((columns) =>
          fc.tuple(fc.constant(columns), fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), { minLength: 1, maxLength: 15 })),
        ),
      fc.integer({ min: 300, max: 1200 }),
      ([columns, rows], available) => {
        const headers = Array.from({ length: columns }, (_, index) => `column_${index}`);
        const cells = headers.map((_, column) => rows.map((row) => row[column] ?? ''));
        const plan = planTable({ headers, cells, available, fontSize: 9, minFontSize: 7, padding });
        assertTokensFit(headers, cells, plan);
        for (const part of plan.parts) assert.ok(part.widths.reduce((sum, width) => sum + width, 0) <= available + 1e-6);
      },
    ),
    { numRuns: 60 },
  );
});

test('a long cell is cut with "…" to the lines a row may take, at a word when one is near', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 0, maxLength: 600 }), fc.integer({ min: 3, max: 40 }), fc.integer({ min: 1, max: 12 }), (text, width, lines) => {
      const cut = cutToLines(text, width, lines);
      if (wrappedLines(text, width) <= lines) assert.equal(cut, text);
      else {
        assert.ok(cut.endsWith('…'));
        assert.ok(text.startsWith(cut.slice(0, -1)));
        assert.ok(wrappedLines(cut, width) <= lines);
      }
    }),
  );
});

test('build_document DOCX: line breaks in a cell stay line breaks', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [{ id: 1, text: 'Line one\nLine two\nLine three' }]);
  const value = ok(await call(env, 'build_document', { format: 'docx', spec: { title: 'Breaks', blocks: [{ type: 'table', source }] } }));
  const xml = xmlUnescape(await zipText(outputPath(env, value.path), 'word/document.xml'));
  assert.match(xml, /<w:t[^>]*>Line one<\/w:t><\/w:r><w:r>(<w:rPr>.*?<\/w:rPr>)?<w:br\/><w:t[^>]*>Line two<\/w:t>/);
  assert.doesNotMatch(xml, /Line one Line two/);
});

/** Words of the rendered pages that are letters only: each must be a whole word of the source, not a piece of one. */
function brokenWords(pages: PdfPage[], known: Set<string>): string[] {
  const broken = new Set<string>();
  for (const page of pages) for (const word of page.words) if (/^[A-Za-z_]{2,}$/.test(word.text) && !known.has(word.text)) broken.add(word.text);
  return [...broken];
}

/**
 * Pieces of formatted values with a digit in them (amounts, ZIPs, SKUs,
 * tracking numbers, dates, IDs) that the rendered pages do not hold as one
 * whole word: a value wrapped inside itself shows up as two pieces instead.
 * A value with spaces ("Mar 1, 2026, 8:15 AM") may break between its words, so each word counts.
 */
function brokenValues(pages: PdfPage[], rows: Record<string, unknown>[]): string[] {
  const headers = Object.keys(rows[0] ?? {});
  const text = tableText({
    columns: headers.map((name) => ({ name, header: name })),
    rows: rows.map((row) => headers.map((header) => row[header])),
    locale: 'en-US',
    maxCellChars: Number.POSITIVE_INFINITY,
  });
  const rendered = new Set(pages.flatMap((page) => page.words.map((word) => word.text)));
  const missing = new Set<string>();
  let checked = 0;
  headers.forEach((header, column) => {
    const values = text.cells.map((row) => row[column] ?? '');
    if (!values.some((value) => /\d/.test(value)) || header === 'note') return;
    for (const value of values) {
      for (const word of value.split(/\s+/)) {
        if (word === '') continue;
        checked += 1;
        if (!rendered.has(word)) missing.add(`${header}: ${word}`);
      }
    }
  });
  assert.ok(checked > 2000, `the check saw the values (${checked} words)`);
  return [...missing];
}

test('the rendered-value check finds a tracking number wrapped in two', () => {
  const rows = wideRows(200, 40);
  const page = (texts: string[]): PdfPage => ({
    width: 800,
    height: 600,
    words: texts.map((text) => ({ text, xMin: 0, yMin: 0, xMax: 1, yMax: 1 })),
    text: texts.join(' '),
  });
  const headers = Object.keys(rows[0] ?? {});
  const all = tableText({
    columns: headers.map((name) => ({ name, header: name })),
    rows: rows.map((row) => headers.map((header) => row[header])),
    locale: 'en-US',
    maxCellChars: 100,
  });
  const words = all.cells.flat().flatMap((cell) => cell.split(/\s+/));
  assert.deepEqual(brokenValues([page(words)], rows), []);
  const tracking = String(rows[3]?.tracking_number);
  const wrapped = words.flatMap((word) => (word === tracking ? [tracking.slice(0, 9), tracking.slice(9)] : [word]));
  assert.deepEqual(brokenValues([page(wrapped)], rows), [`tracking_number: ${tracking}`]);
});

test('rendered by LibreOffice (slow: two office conversions): 25 columns × 200 rows with 2,000-character notes stay readable in DOCX and PPTX', async (t) => {
  const rendering = await renderHost(t, 'spillway-wide-');
  if (rendering === undefined) return;
  const { env, pdfDir } = rendering;
  const rows = wideRows(200);
  const source = await spillRows(env, rows);
  const breaks = await spillRows(env, [{ id: 1, text: 'Line one\nLine two\nLine three' }]);
  const spec = {
    title: 'Orders with every column',
    blocks: [
      { type: 'table', source: breaks, title: 'Breaks' },
      { type: 'table', source, title: 'Orders' },
    ],
  };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'wide.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'wide-deck.pptx' }));
  for (const value of [docx, pptx]) {
    assert.ok(
      value.notes?.some((note) => /shown in \d parts .* each repeating "order_id"/.test(note)),
      `the result says the plan: ${JSON.stringify(value.notes)}`,
    );
    assert.ok(value.notes?.some((note) => /cut with "…"/.test(note)));
  }
  const [docxPdf, pptxPdf] = await renderPdf([outputPath(env, docx.path), outputPath(env, pptx.path)], pdfDir);
  const known = new Set<string>();
  const learn = (text: string) => {
    for (const word of text.split(/[^A-Za-z_]+/)) if (word !== '') known.add(word);
  };
  for (const row of rows) for (const [key, value] of Object.entries(row)) learn(`${key} ${String(value)}`);
  learn('Orders with every column Breaks id text Line one two three Part part of columns repeated rows row Page UTC');
  learn('Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec AM PM');

  for (const [name, pdf] of [
    ['docx', docxPdf],
    ['pptx', pptxPdf],
  ] as const) {
    const pages = await readPdf(pdf as string);
    const text = pages.map((page) => page.text).join('\n');
    assert.deepEqual(wordsOutsidePage(pages), [], `${name}: every word inside its page`);
    assert.deepEqual(brokenWords(pages, known), [], `${name}: no word broken inside`);
    assert.deepEqual(brokenValues(pages, rows), [], `${name}: no amount, code, ID or date broken inside`);
    // LibreOffice drops text clipped off a slide: an ID present in every part is a row that fits.
    for (const row of rows) {
      const id = String(row.order_id);
      const count = text.split(/\s+/).filter((word) => word === id).length;
      assert.ok(count >= 3, `${name}: order ${id} is shown in every part (${count})`);
    }
    for (const row of rows.filter((_, index) => index % 5 === 0)) {
      const marker = String(row.note).split(' ')[0] ?? '';
      assert.ok(text.includes(marker), `${name}: the cut note ${marker} still starts its cell`);
    }
    // A hand-made layout: three parts; two of one-line rows (about 36 a page, 17 a slide) and one where
    // a fifth of the rows hold a note cut to about a third of a page (half a slide).
    const estimate = name === 'docx' ? 2 * Math.ceil(200 / 36) + Math.ceil(160 / 36 + 40 / 3) : 1 + 2 * Math.ceil(200 / 17) + Math.ceil(160 / 17 + 40 / 2);
    assert.ok(pages.length <= 2 * estimate && pages.length >= estimate / 2, `${name}: ${pages.length} pages, estimate ${estimate}`);
  }
  const report = await readPdf(docxPdf as string);
  const lines = ['one', 'two', 'three'].map((word) => {
    const found = report[0]?.words.findIndex((box, index, all) => box.text === 'Line' && all[index + 1]?.text === word) ?? -1;
    assert.ok(found >= 0, `"Line ${word}" is on the first page`);
    return report[0]?.words[found]?.yMin ?? 0;
  });
  const [first, second, third] = lines as [number, number, number];
  assert.ok(first < second && second < third, `a DOCX cell with two line breaks renders three lines (${lines.join(', ')})`);
});
