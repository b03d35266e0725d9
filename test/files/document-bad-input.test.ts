import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { chartPng } from '../fixtures/reference-images.js';
import { call, filesHost, ok, outputPath, spillRows, zipEntries, zipText } from './helpers.js';

test('build_document: an image that is not an image, or is huge, gets a coded error and leaves no file', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/fake.png'), 'this is text, not a PNG');
  const huge = Buffer.concat([chartPng(), Buffer.alloc(11 * 1024 * 1024)]);
  await writeFile(outputPath(env, 'outputs/huge.png'), huge);
  for (const [file, code, pattern] of [
    ['outputs/fake.png', 'INVALID_ARGUMENTS', /is not a usable PNG, JPEG or SVG image/],
    ['outputs/huge.png', 'RESULT_TOO_LARGE', /at most 10485760 are allowed/],
  ] as const) {
    for (const format of ['docx', 'pptx']) {
      const result = await call(env, 'build_document', { format, filename: `bad.${format}`, spec: { title: 'x', blocks: [{ type: 'image', path: file }] } });
      assert.equal(result.isError, true);
      assert.equal(result.error?.code, code, result.text);
      assert.match(result.text, pattern);
    }
  }
  const outputs = await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs'));
  assert.deepEqual(outputs.sort(), ['fake.png', 'huge.png'], 'no document, whole or half, was left');
});

test('build_document: a 100,000-character cell is cut with a note naming the cell; images are embedded', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [
    { id: 1, text: 'y'.repeat(100_000) },
    { id: 2, text: 'short' },
  ]);
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/chart.png'), chartPng());
  const spec = {
    title: 'Cut',
    blocks: [
      { type: 'table', source },
      { type: 'image', path: 'outputs/chart.png', title: 'Chart' },
    ],
  };
  const docx = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'cut.docx' }));
  assert.ok(
    docx.notes?.some((note) => /1 cell was longer than 1000 characters and was cut with "…" \(row 1 "text"\)/.test(note)),
    JSON.stringify(docx.notes),
  );
  const xml = await zipText(outputPath(env, docx.path), 'word/document.xml');
  assert.ok(xml.length < 60_000, 'the document does not carry the whole cell');
  assert.ok((await zipEntries(outputPath(env, docx.path))).some((entry) => entry.startsWith('word/media/')));
  const pptx = ok(await call(env, 'build_document', { format: 'pptx', spec, filename: 'cut.pptx' }));
  assert.ok(
    pptx.notes?.some((note) => /cut with "…" \(row 1 "text"\)/.test(note)),
    JSON.stringify(pptx.notes),
  );
  assert.ok((await zipEntries(outputPath(env, pptx.path))).some((entry) => entry.startsWith('ppt/media/')));
});
