import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { makeRows } from '../helpers/temp-host.js';
import { sortRows } from './fixtures.js';
import { call, expectedSelection, filesHost, ok, outputPath, spillRows, xmlUnescape, zipEntries, zipText } from './helpers.js';

/** Text of each cell, row by row, of every table in an OOXML part (w:tbl for Word, a:tbl for slides). */
function tables(xml: string, prefix: 'w' | 'a'): string[][][] {
  const found: string[][][] = [];
  for (const table of xml.matchAll(new RegExp(`<${prefix}:tbl>([\\s\\S]*?)</${prefix}:tbl>`, 'g'))) {
    const rows: string[][] = [];
    for (const row of (table[1] ?? '').matchAll(new RegExp(`<${prefix}:tr[ >]([\\s\\S]*?)</${prefix}:tr>`, 'g'))) {
      const cells: string[] = [];
      for (const cell of (row[1] ?? '').matchAll(new RegExp(`<${prefix}:tc[ >]?([\\s\\S]*?)</${prefix}:tc>`, 'g'))) {
        cells.push(
          xmlUnescape([...(cell[1] ?? '').matchAll(new RegExp(`<${prefix}:t(?: [^>]*)?>([^<]*)</${prefix}:t>`, 'g'))].map((text) => text[1]).join('')),
        );
      }
      rows.push(cells);
    }
    found.push(rows);
  }
  return found;
}

/** The compression method of a zip member, from its local file header (0 stored, 8 deflate). */
async function zipMethod(file: string, name: string): Promise<number | undefined> {
  const { readFile } = await import('node:fs/promises');
  const data = await readFile(file);
  for (let at = data.indexOf('PK\x03\x04'); at !== -1; at = data.indexOf('PK\x03\x04', at + 4)) {
    const nameLength = data.readUInt16LE(at + 26);
    if (data.toString('utf8', at + 30, at + 30 + nameLength) === name) return data.readUInt16LE(at + 8);
  }
  return undefined;
}

const display = (value: unknown) => (value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

test('build_document DOCX: Word headings and a table whose header row repeats, cells equal the sorted range', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = sortRows(120);
  const source = await spillRows(env, rows);
  const sort = [{ column: 'score', direction: 'desc' as const }];
  const range = { start: 5, count: 60 };
  const spec = {
    title: 'Quarterly <report> & "scores"',
    blocks: [
      { type: 'heading', text: 'Summary' },
      { type: 'paragraph', text: 'First paragraph.\n\nSecond paragraph.' },
      { type: 'bullets', items: ['one', 'two'] },
      { type: 'heading', text: 'Details', level: 2 },
      { type: 'table', source, title: 'Scores', columns: ['id', { name: 'score', header: 'Score' }, 'group'], sort, range },
    ],
  };
  const result = await call(env, 'build_document', { format: 'docx', spec });
  const value = ok(result);
  assert.match(value.path, /^outputs\/Quarterly.*\.docx$/);
  assert.equal(result.attachments[0]?.mimeType, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  const xml = await zipText(outputPath(env, value.path), 'word/document.xml');
  assert.match(xml, /<w:pStyle w:val="Title"\/>/);
  assert.match(xml, /<w:pStyle w:val="Heading1"\/>[\s\S]*Summary/);
  assert.match(xml, /<w:pStyle w:val="Heading2"\/>[\s\S]*Details/);
  assert.ok(xml.includes('Quarterly &lt;report&gt; &amp; &quot;scores&quot;') || xml.includes('Quarterly &lt;report&gt; &amp; "scores"'));
  const [table, ...others] = tables(xml, 'w');
  assert.equal(others.length, 0);
  assert.ok(table);
  assert.deepEqual(table[0], ['id', 'Score', 'group']);
  const expected = expectedSelection(rows, { columns: ['id', 'score', 'group'], sort, range }).map((row) => row.map(display));
  assert.deepEqual(table.slice(1), expected);
  // the header row is marked to repeat on every page
  const firstRow = /<w:tbl>[\s\S]*?<w:tr[ >]([\s\S]*?)<\/w:tr>/.exec(xml)?.[1] ?? '';
  assert.match(firstRow, /<w:tblHeader\/>/);
  assert.equal((value.tables as { rows: number }[])[0]?.rows, 60);
});

test('build_document PPTX: title slide, text slides, a table paginated with the header on each slide; compressed', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = makeRows(40);
  const source = await spillRows(env, rows);
  const spec = {
    title: 'Deck',
    subtitle: 'for tests',
    blocks: [
      { type: 'heading', text: 'Why' },
      { type: 'bullets', items: ['fast', 'exact'] },
      { type: 'table', source, columns: ['id', 'name', 'amount'], title: 'Items' },
    ],
  };
  const value = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'deck' }));
  assert.equal(value.path, 'outputs/deck.pptx');
  const file = outputPath(env, value.path);
  const slides = (await zipEntries(file)).filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name));
  // title + "Why" + the table paged by measured row height (40 short rows: three slides)
  assert.equal(slides.length, value.slides);
  assert.ok(slides.length >= 4);
  const collected: string[][] = [];
  for (let number = 3; number <= slides.length; number += 1) {
    const xml = await zipText(file, `ppt/slides/slide${number}.xml`);
    const [table] = tables(xml, 'a');
    assert.ok(table, `slide ${number} has a table`);
    assert.deepEqual(table[0], ['id', 'name', 'amount']);
    collected.push(...table.slice(1));
    assert.match(xml, /Items \(rows? [\d,]+(–[\d,]+)? of 40\)/);
  }
  // amount holds fractions: shown with two decimals (en-US)
  const shown = (row: unknown[]) => [
    display(row[0]),
    display(row[1]),
    (row[2] as number).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  ];
  assert.deepEqual(collected, expectedSelection(rows, { columns: ['id', 'name', 'amount'] }).map(shown));
  const titleXml = await zipText(file, 'ppt/slides/slide1.xml');
  assert.match(titleXml, />Deck</);
  // pptxgenjs ignores compression unless written as a stream: the slide XML must be deflated (method 8)
  assert.equal(await zipMethod(file, 'ppt/slides/slide3.xml'), 8);
});

test('build_document reads a long spec from specPath; bad specs name the field; more rows than documents.maxTableRows point to export_table', async (t) => {
  const env = await filesHost({ documents: { maxTableRows: 50 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(80));
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(
    outputPath(env, 'args/spec.json'),
    JSON.stringify({ title: 'From file', blocks: [{ type: 'table', source, range: { start: 0, count: 30 } }] }),
  );
  const fromFile = ok(await call(env, 'build_document', { format: 'docx', specPath: 'args/spec.json' }));
  assert.equal(fromFile.path, 'outputs/From file.docx');

  const both = await call(env, 'build_document', { format: 'docx', specPath: 'args/spec.json', spec: { title: 'x', blocks: [] } });
  assert.equal(both.isError, true);
  assert.match(both.text, /either inline as spec or as specPath/);

  await writeFile(outputPath(env, 'args/bad.json'), JSON.stringify({ title: 'x', blocks: [{ type: 'bullets', items: [] }] }));
  const bad = await call(env, 'build_document', { format: 'pptx', specPath: 'args/bad.json' });
  assert.equal(bad.error?.code, 'INVALID_ARGUMENTS');
  assert.match(bad.text, /in args\/bad\.json.*\$\.blocks\[0\]\.items/);

  const tooMany = await call(env, 'build_document', {
    format: 'docx',
    spec: {
      title: 'Big',
      blocks: [
        { type: 'table', source, range: { start: 0, count: 30 } },
        { type: 'table', source },
      ],
    },
  });
  assert.equal(tooMany.error?.code, 'ROW_LIMIT');
  assert.match(tooMany.text, /at most 50 table rows/);
  assert.match(tooMany.text, /export_table/);
  assert.match(tooMany.text, /already hold 30/);
});
