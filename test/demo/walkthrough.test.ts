import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import JSZip from 'jszip';
import XLSX from 'xlsx';
import { demoQuery, runDemo } from '../../src/demo/run-demo.js';
import { tempHost } from '../helpers/temp-host.js';

test('the demo walkthrough runs to the end and its files read back', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const lines: string[] = [];
  const report = await runDemo({ host: env.host, conversationId: 'demo-test', print: (line) => lines.push(line) });
  const output = lines.join('\n');
  assert.equal(lines.at(-1), 'Walkthrough finished.');
  const folder = path.join(env.host.sandbox.conversation('demo-test').dir);
  assert.equal(report.folder, folder);

  // 1. The query: 321 rows, spilled before the model saw them.
  const query = report.steps.find((step) => step.tool === 'query_sql');
  assert.equal(query?.status, 'ran');
  assert.equal(query?.spill?.rows, 321);
  const source = query?.spill?.path as string;
  const rows = (await readFile(path.join(folder, source), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(rows.length, 321);
  assert.ok(rows.every((row) => (row.amount as number) >= 200));
  assert.match(output, new RegExp(`Saved to ${source.replace('.', '\\.')}|"path":"${source}"`));
  assert.ok(output.includes('"sql": ' + JSON.stringify(demoQuery)));

  const step = (tool: string) => report.steps.find((candidate) => candidate.tool === tool);
  const expectSkipped = (tool: string) => {
    assert.equal(step(tool)?.status, 'skipped', `${tool}: ${step(tool)?.text}`);
    assert.match(output, new RegExp(`the ${tool} tool is not registered in this build`));
    t.diagnostic(`${tool} is not registered in this build: its step was skipped and said so`);
  };

  // 2. XLSX with chosen columns, renamed headers, sorted by amount descending.
  if (env.host.getTool('export_table') === undefined) expectSkipped('export_table');
  else {
    assert.equal(step('export_table')?.status, 'ran', step('export_table')?.text);
    const workbook = XLSX.read(await readFile(path.join(folder, 'outputs', 'fraud-200-plus.xlsx')));
    const sheet = workbook.Sheets[workbook.SheetNames[0] as string];
    const table = XLSX.utils.sheet_to_json<unknown[]>(sheet as XLSX.WorkSheet, { header: 1 });
    assert.deepEqual(table[0], ['id', 'ts', 'Account holder', 'merchant', 'country', 'Amount', 'currency', 'channel', 'note']);
    assert.equal(table.length, 322);
    const amounts = table.slice(1).map((row) => row[5] as number);
    assert.deepEqual(
      amounts,
      [...amounts].sort((a, b) => b - a),
    );
    assert.equal(amounts[0], Math.max(...rows.map((row) => row.amount as number)));
  }

  // 3. DOCX whose table came from the spill file.
  if (env.host.getTool('build_document') === undefined) expectSkipped('build_document');
  else {
    assert.equal(step('build_document')?.status, 'ran', step('build_document')?.text);
    const zip = await JSZip.loadAsync(await readFile(path.join(folder, 'outputs', 'fraud-review.docx')));
    const xml = (await zip.file('word/document.xml')?.async('string')) ?? '';
    assert.match(xml, /Fraud review: transactions of 200 or more/);
    const largest = [...rows].sort((a, b) => (b.amount as number) - (a.amount as number))[0];
    assert.ok(xml.includes(String(largest?.id)), 'the largest transaction is in the document table');
    assert.equal((xml.match(/<w:tr[ >]/g) ?? []).length, 21, 'a header row and the 20 largest');
  }

  // 4–5. The echo tool received all 321 rows without the model retyping them.
  if (env.host.getTool('call_with_args_file') === undefined) expectSkipped('call_with_args_file');
  else {
    const delegated = step('call_with_args_file');
    assert.equal(delegated?.status, 'ran', delegated?.text);
    assert.ok((delegated?.argumentChars ?? 0) < 300);
    const spilled = delegated?.spill?.path;
    const echoed = spilled === undefined ? JSON.parse(delegated?.text ?? '{}') : JSON.parse(await readFile(path.join(folder, spilled), 'utf8'));
    // What the tool received, byte for byte: the args file, then the expanded references.
    const expected = JSON.stringify({ caseId: 'FR-2026-0042', action: 'open review', transactions: rows, firstMerchant: rows[0]?.merchant });
    assert.equal(echoed.sha256, createHash('sha256').update(expected).digest('hex'));
    assert.equal(echoed.receivedCharacters, expected.length);
    assert.equal(echoed.received.transactions, `a list of 321 items (${JSON.stringify(rows).length.toLocaleString('en-US')} characters)`);
  }
  if (env.host.getTool('write_file') === undefined)
    assert.match(output, /write_file tool is not registered in this build yet; the walkthrough writes args\/echo-case\.json itself/);

  // The files are listed with their real sizes.
  for (const file of report.files) {
    const bytes = (await readFile(path.join(folder, file.path))).length;
    assert.equal(file.bytes, bytes, file.path);
  }
  assert.ok(report.files.some((file) => file.path === source));
  assert.match(output, /The model wrote [\d,]+ characters of arguments/);
});
