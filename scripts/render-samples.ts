// Builds the reference report (DOCX), deck (PPTX), workbook (XLSX) and CSV,
// and the wide-table samples (25 columns with 2,000-character notes, as DOCX,
// PPTX and XLSX; 40 columns laid out one record per block, as DOCX and PPTX), the mixed-scripts table (Chinese, Japanese,
// Korean, Hebrew, Arabic, emoji; as DOCX, PPTX and XLSX), through a real host, renders them with LibreOffice and
// writes the pages as PNG into samples/ (git-ignored) for a reviewer to look at.
// `npm run render-samples` (needs soffice and pdftoppm; ROWS=40, WIDE_ROWS=60 and RECORD_ROWS=12 by default).
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { referenceRows, referenceSpec } from '../test/fixtures/reference-report.js';
import { call, filesHost, ok, outputPath, spillRows } from '../test/files/helpers.js';
import { renderFirstPagePng, renderPdf, renderPng, renderUnavailable, scriptFontsUnavailable } from '../test/helpers/render.js';
import { chartPng } from '../test/fixtures/reference-images.js';
import { veryWideRows, wideRows } from '../test/fixtures/wide-table.js';
import { mixedScriptRows } from '../test/fixtures/mixed-scripts-table.js';
import { writeFile } from 'node:fs/promises';

const out = path.resolve('samples');
const missing = renderUnavailable();
if (missing !== undefined) {
  process.stderr.write(`render-samples: ${missing}\n`);
  process.exit(1);
}
const rows = Number(process.env.ROWS ?? 40);
const wide = Number(process.env.WIDE_ROWS ?? 60);
const env = await filesHost();
try {
  const source = await spillRows(env, referenceRows(rows));
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/chart.png'), chartPng());
  const spec = referenceSpec(source, rows);
  const wideSource = await spillRows(env, wideRows(wide));
  const wideSpec = {
    title: 'Orders with every column',
    blocks: [
      { type: 'paragraph', text: 'All 25 columns, as the query returned them.' },
      { type: 'table', source: wideSource, title: 'Orders' },
    ],
  };
  const recordsSource = await spillRows(env, veryWideRows(Number(process.env.RECORD_ROWS ?? 12)));
  const recordsSpec = {
    title: 'Orders with 40 columns',
    blocks: [
      { type: 'paragraph', text: 'Too many columns for parts a reader can follow: one block per row.' },
      { type: 'table', source: recordsSource, title: 'Orders' },
    ],
  };
  const mixedSource = await spillRows(env, mixedScriptRows);
  const mixedSpec = {
    title: 'Customers in many scripts',
    blocks: [
      { type: 'paragraph', text: 'Chinese, Japanese, Korean, Hebrew, Arabic and emoji (👍🏽 👨‍👩‍👧‍👦 🇯🇵) in one table.' },
      { type: 'table', source: mixedSource, title: 'Customers' },
    ],
  };
  const fonts = scriptFontsUnavailable();
  if (fonts !== undefined) process.stderr.write(`render-samples: ${fonts}: the mixed-scripts samples will show empty boxes\n`);
  const files: string[] = [];
  for (const [tool, args] of [
    ['build_document', { format: 'docx', spec: wideSpec, filename: 'wide-report.docx' }],
    ['build_document', { format: 'pptx', spec: wideSpec, filename: 'wide-deck.pptx' }],
    ['export_table', { source: wideSource, format: 'xlsx', filename: 'wide-sheet.xlsx' }],
    ['build_document', { format: 'docx', spec: recordsSpec, filename: 'records-report.docx' }],
    ['build_document', { format: 'pptx', spec: recordsSpec, filename: 'records-deck.pptx' }],
    ['build_document', { format: 'docx', spec: mixedSpec, filename: 'mixed-scripts-report.docx' }],
    ['build_document', { format: 'pptx', spec: mixedSpec, filename: 'mixed-scripts-deck.pptx' }],
    ['export_table', { source: mixedSource, format: 'xlsx', filename: 'mixed-scripts-sheet.xlsx' }],
    ['build_document', { format: 'docx', spec, filename: 'report.docx' }],
    ['build_document', { format: 'pptx', spec, filename: 'deck.pptx' }],
    ['export_table', { source, format: 'xlsx', filename: 'orders.xlsx', sheet: 'Orders' }],
    ['export_table', { source, format: 'csv', filename: 'orders.csv' }],
  ] as const) {
    const value = ok(await call(env, tool, args));
    process.stderr.write(`${tool} ${String(args.format)}: ${JSON.stringify(value.notes ?? [])}\n`);
    files.push(outputPath(env, value.path));
  }
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  for (const file of files) await copyFile(file, path.join(out, path.basename(file)));
  const pdfs = await renderPdf(
    files.filter((file) => !file.endsWith('.csv')),
    out,
  );
  for (const pdf of pdfs) await renderPng(pdf, path.join(out, path.basename(pdf, '.pdf')), 70);
  // The PDF pages show colour emoji as gaps (LibreOffice 7.4's PDF export); LibreOffice's own drawing of page 1 shows them.
  const mixed = files.filter((file) => path.basename(file).startsWith('mixed-scripts-'));
  const drawn = await mkdtemp(path.join(tmpdir(), 'spillway-drawn-'));
  try {
    for (const png of await renderFirstPagePng(mixed, drawn)) await copyFile(png, path.join(out, `${path.basename(png, '.png')}-drawn.png`));
  } finally {
    await rm(drawn, { recursive: true, force: true });
  }
  process.stderr.write(`render-samples: files, PDFs and page PNGs in ${out}\n`);
} finally {
  await env.cleanup();
}
