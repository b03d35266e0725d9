import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { runDemo } from '../../src/demo/run-demo.js';
import { tempHost } from '../helpers/temp-host.js';

/** The README's excerpt of the demo walkthrough (the ```text block after "Watch a model's-eye walkthrough"). */
function readmeExcerpt(): string[] {
  const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('```text\n1. Query');
  assert.ok(start >= 0, 'README.md has the demo excerpt');
  return readme.slice(start + '```text\n'.length, readme.indexOf('\n```', start)).split('\n');
}

test('the figures of the demo in the README are what the demo prints now (argument sizes, rows, bytes, file sizes)', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const lines: string[] = [];
  await runDemo({ host: env.host, conversationId: 'readme-demo', print: (line) => lines.push(line) });
  const output = lines.join('\n');
  const excerpt = readmeExcerpt().join('\n');
  // Each call the README quotes, with the size of its arguments.
  const calls = [...excerpt.matchAll(/▶ the model calls (\w+) \(([\d,]+) characters of arguments\)/g)];
  assert.ok(calls.length >= 2);
  for (const [, tool, chars] of calls) {
    assert.ok(
      output.includes(`▶ the model calls ${tool} (${chars} characters of arguments)`),
      `README.md: ${tool} with ${chars} characters of arguments is not what the demo prints; update the README`,
    );
  }
  // The spill's figures and the export's size.
  for (const figure of excerpt.match(/"(?:bytes|rows|total|returned)":\d+/g) ?? []) {
    assert.ok(output.includes(figure), `README.md shows ${figure}; the demo prints otherwise; update the README`);
  }
  // Sizes of zipped files move by a few bytes with the time stamps inside them: within 1 KiB.
  const kib = (text: string) => Number(/([\d.,]+) KiB/.exec(text)?.[1]?.replace(/,/g, ''));
  for (const [sentence, name] of excerpt.matchAll(/to outputs\/([\w.-]+) \([\d.,]+ KiB\)/g)) {
    const printed = new RegExp(`to outputs/${(name ?? '').replace(/[.]/g, '\\.')} \\([\\d.,]+ KiB\\)`).exec(output)?.[0];
    assert.ok(
      printed !== undefined && Math.abs(kib(printed) - kib(sentence)) <= 1,
      `README.md says "${sentence}"; the demo prints "${printed}"; update the README`,
    );
  }
  // The closing summary: the same calls and characters, the same size within 1 KiB.
  const summary = /^The model wrote .*$/m.exec(excerpt)?.[0] ?? '';
  const printedSummary = lines.find((line) => line.startsWith('The model wrote')) ?? '';
  assert.equal(printedSummary.replace(/[\d.,]+ KiB/, 'N KiB'), summary.replace(/[\d.,]+ KiB/, 'N KiB'), "update the README's demo summary");
  assert.ok(Math.abs(kib(printedSummary) - kib(summary)) <= 1, `README.md's summary says ${kib(summary)} KiB; the demo prints "${printedSummary}"`);
});
