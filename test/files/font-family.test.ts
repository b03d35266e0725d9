import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/load-config.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { defaultsOf } from '../../src/config/schema-defaults.js';
import { call, filesHost, ok, outputPath, spillRows, zipEntries, zipText } from './helpers.js';

const rows = [
  { id: 1, customer: 'Acme Holdings', amount: 1234.5 },
  { id: 2, customer: 'Nordwind AB', amount: 20 },
];

function spec(source: string, extra: Record<string, unknown> = {}) {
  return {
    title: 'Fonts',
    ...extra,
    blocks: [
      { type: 'heading', text: 'Orders' },
      { type: 'paragraph', text: 'Some text.' },
      { type: 'table', source },
    ],
  };
}

/** Every typeface a DrawingML run names (`<a:latin>`, `<a:ea>`, `<a:cs>`), bullet glyph fonts and theme references (+mn-lt) aside. */
function runTypefaces(xml: string): string[] {
  return [...xml.matchAll(/<a:(?:latin|ea|cs) typeface="([^"]*)"/g)].map((match) => match[1] ?? '').filter((face) => !face.startsWith('+'));
}

/** The font family a DOCX table row's runs are drawn in: the document default, since neither a style nor a run font overrides it. */
function assertDocxRowInherits(row: string, what: string): void {
  assert.match(row, /<w:t[ >]/, `${what} has text`);
  assert.doesNotMatch(row, /<w:rFonts/, `${what} names no font of its own`);
  assert.doesNotMatch(row, /<w:pStyle/, `${what} takes no paragraph style`);
}

async function assertDocxFamily(file: string, family: string): Promise<void> {
  const styles = await zipText(file, 'word/styles.xml');
  const both = `w:ascii="${family}" w:cs="${family}" w:eastAsia="${family}" w:hAnsi="${family}"`;
  assert.match(/<w:docDefaults>[\s\S]*?<\/w:docDefaults>/.exec(styles)?.[0] ?? '', new RegExp(`<w:rFonts ${both}/>`), 'the document default font');
  for (const id of ['Title', 'Heading1', 'Caption']) {
    const style = new RegExp(`<w:style [^>]*w:styleId="${id}"[\\s\\S]*?</w:style>`).exec(styles)?.[0] ?? '';
    assert.match(style, new RegExp(`<w:rFonts ${both}/>`), `the ${id} style`);
  }
  for (const fonts of styles.matchAll(/<w:rFonts ([^>]*)\/>/g)) assert.equal(fonts[1], both, 'every style names the one family');
  const document = await zipText(file, 'word/document.xml');
  const table = /<w:tbl>[\s\S]*?<\/w:tbl>/.exec(document)?.[0] ?? '';
  const tableRows = [...table.matchAll(/<w:tr>[\s\S]*?<\/w:tr>/g)].map((match) => match[0]);
  assert.match(tableRows[0] ?? '', /<w:tblHeader\/>/, 'the first row is the header');
  assertDocxRowInherits(tableRows[0] ?? '', 'the header row');
  assertDocxRowInherits(tableRows[1] ?? '', 'a body row');
  assert.doesNotMatch(document, /<w:rFonts/, 'no run anywhere names another font');
}

async function assertPptxFamily(file: string, family: string): Promise<void> {
  const theme = await zipText(file, 'ppt/theme/theme1.xml');
  assert.match(theme, new RegExp(`<a:majorFont><a:latin typeface="${family}"/>`), 'the theme heading font');
  assert.match(theme, new RegExp(`<a:minorFont><a:latin typeface="${family}"/>`), 'the theme body font');
  const parts = (await zipEntries(file)).filter((entry) => /^ppt\/(slides|slideLayouts|slideMasters)\/[^/]+\.xml$/.test(entry));
  let tableSlide: string | undefined;
  for (const part of parts) {
    const xml = await zipText(file, part);
    for (const face of runTypefaces(xml)) assert.equal(face, family, `${part} names only ${family}`);
    if (xml.includes('<a:tbl>')) tableSlide = xml;
  }
  const cells = [...(tableSlide ?? '').matchAll(/<a:tc>[\s\S]*?<\/a:tc>/g)].map((match) => match[0]);
  assert.equal(cells.length, 9, 'a header row and two rows of three cells');
  const header = cells[0] ?? '';
  const body = cells[4] ?? '';
  assert.match(header, /b="1"/, 'the first cell is a header cell');
  for (const [cell, what] of [
    [header, 'the header cell'],
    [body, 'a body cell'],
  ] as const) {
    assert.match(cell, /<a:t>/, `${what} has text`);
    assert.deepEqual([...new Set(runTypefaces(cell))], [family], `${what} is in ${family}`);
  }
}

async function assertXlsxFamily(file: string, family: string): Promise<void> {
  const styles = await zipText(file, 'xl/styles.xml');
  const fonts = [...(/<fonts[^>]*>([\s\S]*?)<\/fonts>/.exec(styles)?.[1] ?? '').matchAll(/<font>([\s\S]*?)<\/font>/g)].map((match) => match[1] ?? '');
  const xfs = [...(/<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(styles)?.[1] ?? '').matchAll(/<xf\b[^>]*?(?:\/>|>[\s\S]*?<\/xf>)/g)].map((match) => match[0]);
  const sheet = await zipText(file, 'xl/worksheets/sheet1.xml');
  const fontOf = (address: string) => {
    const style = Number(new RegExp(`<c r="${address}"[^>]* s="(\\d+)"`).exec(sheet)?.[1] ?? 0);
    return fonts[Number(/fontId="(\d+)"/.exec(xfs[style] ?? '')?.[1] ?? 0)] ?? '';
  };
  for (const address of ['A1', 'B1', 'C1'])
    assert.match(fontOf(address), new RegExp(`<b/>[\\s\\S]*<name val="${family}"/>`), `header ${address} is bold ${family}`);
  for (const address of ['A2', 'B2', 'C2', 'A3', 'B3', 'C3']) {
    const font = fontOf(address);
    assert.match(font, new RegExp(`<name val="${family}"/>`), `body cell ${address} is in ${family}`);
    assert.doesNotMatch(font, /<b\/>/, `body cell ${address} is not bold`);
  }
}

test('documents.fontFamily sets the one family of header and body cells in DOCX, PPTX and XLSX', async (t) => {
  const env = await filesHost({ documents: { fontFamily: 'Liberation Serif' } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec: spec(source), filename: 'fonts.docx' }));
  await assertDocxFamily(outputPath(env, docx.path), 'Liberation Serif');
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec: spec(source), filename: 'fonts.pptx' }));
  await assertPptxFamily(outputPath(env, pptx.path), 'Liberation Serif');
  const xlsx = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'fonts.xlsx' }));
  await assertXlsxFamily(outputPath(env, xlsx.path), 'Liberation Serif');
  for (const value of [docx, pptx, xlsx]) assert.equal(value.notes?.some((note) => /wider than/.test(note)) ?? false, false);
  assert.match(
    env.host.getTool('build_document')?.description ?? '',
    /"fontFamily"\? \(one family for headings, text and tables; default "Liberation Serif"\)/,
  );
});

test("build_document: a spec's fontFamily wins over the configured one; a wider family gets a note; a name that is not a family is refused", async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec: spec(source, { fontFamily: 'Carlito' }), filename: 'carlito.docx' }));
  await assertDocxFamily(outputPath(env, docx.path), 'Carlito');
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec: spec(source, { fontFamily: 'Carlito' }), filename: 'carlito.pptx' }));
  await assertPptxFamily(outputPath(env, pptx.path), 'Carlito');
  const xlsx = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'default.xlsx' }));
  await assertXlsxFamily(outputPath(env, xlsx.path), 'Arial');

  for (const format of ['docx', 'pptx']) {
    const wide = ok(await call(env, 'build_document', { format, spec: spec(source, { fontFamily: 'Verdana' }), filename: `verdana.${format}` }));
    assert.ok(
      wide.notes?.some((note) => /"Verdana" is wider than the Arial-like letter widths/.test(note)),
      `${format}: the result says long words may wrap: ${JSON.stringify(wide.notes)}`,
    );
  }

  const refused = await call(env, 'build_document', { format: 'docx', spec: spec(source, { fontFamily: 'Arial"/><x' }) });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /fontFamily/);
});

test('documents.fontFamily defaults to Arial and must be a family name', () => {
  const defaults = defaultsOf(configSchema) as Config;
  assert.equal(defaults.documents.fontFamily, 'Arial');
  assert.equal(validateConfig({ ...defaults, documents: { ...defaults.documents, fontFamily: 'Noto Sans CJK JP' } }).documents.fontFamily, 'Noto Sans CJK JP');
  for (const bad of ['', ' Arial', 'Arial</name>', 'x'.repeat(65)]) {
    assert.throws(
      () => validateConfig({ ...defaults, documents: { ...defaults.documents, fontFamily: bad } }),
      /documents\.fontFamily|fontFamily/,
      JSON.stringify(bad),
    );
  }
});
