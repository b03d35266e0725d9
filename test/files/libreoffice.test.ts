import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { makeRows } from '../helpers/temp-host.js';
import { call, filesHost, ok, outputPath, spillRows } from './helpers.js';

const run = promisify(execFile);

function findSoffice(): string | undefined {
  for (const candidate of ['soffice', 'libreoffice']) {
    const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

test('LibreOffice opens the produced XLSX, DOCX and PPTX (headless conversion to PDF)', async (t) => {
  const soffice = findSoffice();
  if (soffice === undefined) {
    t.skip('LibreOffice (soffice) is not installed; .ci/run installs libreoffice-calc, -writer and -impress');
    return;
  }
  const env = await filesHost();
  t.after(() => env.cleanup());
  const profile = await mkdtemp(path.join(tmpdir(), 'spillway-lo-profile-'));
  const pdfs = await mkdtemp(path.join(tmpdir(), 'spillway-lo-pdf-'));
  t.after(() => Promise.all([rm(profile, { recursive: true, force: true }), rm(pdfs, { recursive: true, force: true })]));

  // Small documents: LibreOffice takes tens of seconds on large tables.
  const source = await spillRows(env, makeRows(12));
  const xlsx = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'sheet.xlsx' }));
  const spec = {
    title: 'Check',
    blocks: [
      { type: 'heading', text: 'Rows' },
      { type: 'table', source, columns: ['id', 'name', 'note'] },
    ],
  };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'doc.docx' }));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'deck.pptx' }));
  const files = [xlsx.path, docx.path, pptx.path].map((relative) => outputPath(env, relative));

  await run(soffice, [`-env:UserInstallation=${pathToFileURL(profile).href}`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', pdfs, ...files], {
    timeout: 240_000,
  });
  for (const name of ['sheet.pdf', 'doc.pdf', 'deck.pdf']) {
    const pdf = await readFile(path.join(pdfs, name));
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', `${name} is a PDF`);
    assert.ok(pdf.length > 1000, `${name} has content (${pdf.length} bytes)`);
  }
});
