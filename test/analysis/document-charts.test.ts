import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { call, filesHost, ok, outputPath, spillRows, zipEntries, zipText } from '../files/helpers.js';

const run = promisify(execFile);
const tickets = Array.from({ length: 60 }, (_, index) => ({ id: index + 1, country: ['DE', 'FR', 'NL'][index % 3], hours: (index % 7) + 1 }));
const chartSpec = {
  mark: 'bar',
  encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'sum', field: 'hours', type: 'quantitative' } },
};

function findSoffice(): string | undefined {
  for (const candidate of ['soffice', 'libreoffice']) {
    const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

async function buildBoth(): Promise<{ env: Awaited<ReturnType<typeof filesHost>>; docx: string; pptx: string }> {
  const env = await filesHost();
  const source = await spillRows(env, tickets);
  const chart = ok(await call(env, 'build_chart', { source, spec: chartSpec, filename: 'hours' }));
  const spec = {
    title: 'Hours report',
    blocks: [
      { type: 'heading', text: 'Hours by country' },
      // A spec of its own (with a title), so the picture differs from the build_chart PNG (DOCX stores identical pictures once).
      { type: 'chart', source, spec: { ...chartSpec, title: 'Hours' }, title: 'Figure 1: hours by country' },
      { type: 'paragraph', text: 'The same chart, as the PNG build_chart made:' },
      { type: 'image', path: chart.png, title: 'Figure 2' },
      { type: 'table', source, columns: ['id', 'country', 'hours'], range: { start: 0, count: 5 } },
    ],
  };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'report.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'report.pptx' }));
  return { env, docx: docx.path, pptx: pptx.path };
}

test('build_document embeds chart blocks (rendered from a spill) and image blocks as pictures in DOCX and PPTX', async (t) => {
  const { env, docx, pptx } = await buildBoth();
  t.after(() => env.cleanup());
  const docxFile = outputPath(env, docx);
  const media = (await zipEntries(docxFile)).filter((name) => name.startsWith('word/media/'));
  assert.equal(media.length, 2, `two pictures in the DOCX: ${media.join(', ')}`);
  const body = await zipText(docxFile, 'word/document.xml');
  assert.equal((body.match(/<w:drawing>/g) ?? []).length, 2);
  assert.match(body, /Figure 1: hours by country/);
  const pptxFile = outputPath(env, pptx);
  const slideMedia = (await zipEntries(pptxFile)).filter((name) => name.startsWith('ppt/media/'));
  assert.ok(slideMedia.length >= 2, `pictures in the PPTX: ${slideMedia.join(', ')}`);
  // The image block embeds the build_chart PNG byte for byte.
  const png = await readFile(path.join(path.dirname(pptxFile), 'hours.png'));
  const zip = await JSZip.loadAsync(await readFile(docxFile));
  const embedded = await Promise.all(media.map((name) => (zip.file(name) as JSZip.JSZipObject).async('nodebuffer')));
  assert.ok(
    embedded.some((data) => data.equals(png)),
    'the image block holds the PNG build_chart wrote',
  );
});

test('chart and image blocks refuse bad input with codes, and no document is written', async (t) => {
  const env = await filesHost({ charts: { maxRows: 10, maxMarks: 1000, timeoutMs: 60_000, scale: 1 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, tickets);
  await writeFile(path.join(env.host.sandbox.conversation('c1').dir, 'outputs', 'fake.png'), 'not an image at all');
  const cases: [unknown, string][] = [
    [{ type: 'chart', source, spec: { ...chartSpec, data: { url: 'https://example.com/x.csv' } } }, 'CHART_SPEC_INVALID'],
    [{ type: 'chart', source, spec: chartSpec }, 'CHART_TOO_LARGE'],
    [{ type: 'chart', source }, 'INVALID_ARGUMENTS'],
    [{ type: 'image', path: '/etc/passwd' }, 'PATH_ABSOLUTE'],
    [{ type: 'image', path: 'outputs/fake.png' }, 'INVALID_ARGUMENTS'],
    [{ type: 'image', path: 'outputs/missing.png' }, 'PATH_NOT_FOUND'],
    [{ type: 'figure', data: 'x' }, 'INVALID_ARGUMENTS'],
  ];
  for (const [block, code] of cases) {
    const result = await call(env, 'build_document', { format: 'docx', spec: { title: 'x', blocks: [block] }, filename: 'x.docx' });
    assert.equal(result.error?.code, code, `${JSON.stringify(block)}: ${result.text.slice(0, 300)}`);
  }
  assert.deepEqual(await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs')), ['fake.png']);
});

test('LibreOffice (slow: two office conversions) opens a DOCX and a PPTX with charts, and their PDFs hold the pictures', async (t) => {
  const soffice = findSoffice();
  if (soffice === undefined) {
    t.skip('LibreOffice (soffice) is not installed; .ci/run installs libreoffice-writer and -impress');
    return;
  }
  const { env, docx, pptx } = await buildBoth();
  t.after(() => env.cleanup());
  const profile = await mkdtemp(path.join(tmpdir(), 'spillway-lo-profile-'));
  const pdfs = await mkdtemp(path.join(tmpdir(), 'spillway-lo-pdf-'));
  t.after(() => Promise.all([rm(profile, { recursive: true, force: true }), rm(pdfs, { recursive: true, force: true })]));
  const pdfimages = spawnSync('sh', ['-c', 'command -v pdfimages'], { encoding: 'utf8' }).status === 0;
  // One folder each: LibreOffice names both PDFs report.pdf.
  for (const [file, label] of [
    [docx, 'docx'],
    [pptx, 'pptx'],
  ] as const) {
    const out = path.join(pdfs, label);
    await run(
      soffice,
      [`-env:UserInstallation=${pathToFileURL(profile).href}`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', out, outputPath(env, file)],
      { timeout: 240_000 },
    );
    const pdf = await readFile(path.join(out, 'report.pdf'));
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', `${label} converted to a PDF`);
    if (!pdfimages) {
      t.diagnostic('pdfimages (poppler-utils) is not installed: the PDFs were checked, not their pictures');
      continue;
    }
    const listed = await run('pdfimages', ['-list', path.join(out, 'report.pdf')]);
    const images = listed.stdout.split('\n').filter((line) => /^\s*\d+\s+\d+\s+image\s/.test(line));
    assert.ok(images.length >= 2, `${label}: the PDF holds the two pictures (${images.length} found)\n${listed.stdout}`);
  }
});

test('an SVG image block (e.g. the SVG build_chart wrote) is rasterized to a PNG picture; an SVG that refers to other files is refused', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, tickets);
  const chart = ok(await call(env, 'build_chart', { source, spec: chartSpec, filename: 'hours' }));
  const svgPath = String(chart.svg);
  assert.match(svgPath, /\.svg$/);
  const built = ok(await call(env, 'build_document', { format: 'docx', spec: { title: 'SVG', blocks: [{ type: 'image', path: svgPath, title: 'Figure' }] } }));
  const docxFile = outputPath(env, built.path);
  const media = (await zipEntries(docxFile)).filter((name) => name.startsWith('word/media/'));
  assert.equal(media.length, 1);
  const zip = await JSZip.loadAsync(await readFile(docxFile));
  const picture = await (zip.file(media[0] as string) as JSZip.JSZipObject).async('nodebuffer');
  assert.equal(picture.readUInt32BE(0), 0x89504e47, 'the SVG is embedded as a PNG');
  assert.ok(picture.readUInt32BE(16) > 0 && picture.readUInt32BE(20) > 0);

  await writeFile(
    outputPath(env, 'outputs/leaky.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="/etc/hostname" width="10" height="10"/></svg>',
  );
  const refused = await call(env, 'build_document', {
    format: 'docx',
    filename: 'leaky.docx',
    spec: { title: 'x', blocks: [{ type: 'image', path: 'outputs/leaky.svg' }] },
  });
  assert.equal(refused.error?.code, 'INVALID_ARGUMENTS');
  assert.match(refused.text, /must be self-contained/);
  assert.deepEqual(
    (await readdir(outputPath(env, 'outputs'))).filter((name) => name.startsWith('leaky.docx')),
    [],
  );
});
