import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { placeFigures, type FlowItem } from '../../src/files/layout/figure-placement.js';
import { chartPng } from '../fixtures/reference-images.js';
import { readPdf, readPixels, renderPdf, rowsWithColour, type PdfPage } from '../helpers/render.js';
import { call, ok, outputPath, renderHost } from './helpers.js';

const text = (height: number): FlowItem => ({ kind: 'text', height });
const figure = (height: number): FlowItem => ({ kind: 'figure', height, caption: 20 });

test('a figure that fits stays, one that nearly fits is shrunk, one that does not lets the text after it flow in first', () => {
  const place = (items: FlowItem[]) => placeFigures({ items, pageHeight: 700, minScale: 0.7, referenceHeight: 20, slack: 0 });
  const fits = place([text(300), figure(300), text(100)]);
  assert.deepEqual(fits.order, [0, 1, 2]);
  assert.equal(fits.scales.get(1), 1);

  const shrunk = place([text(400), figure(340), text(100)]);
  assert.deepEqual(shrunk.order, [0, 1, 2]);
  assert.ok(Math.abs((shrunk.scales.get(1) ?? 0) - 280 / 340) < 1e-9, `scaled to the room: ${shrunk.scales.get(1)}`);

  const moved = place([
    text(400),
    figure(450),
    text(100),
    text(100),
    { kind: 'heading', height: 40 },
    text(100),
    { kind: 'rows', lead: 10, header: 10, rows: [10] },
  ]);
  assert.deepEqual(moved.order, [0, 2, 3, 1, 4, 5, 6], 'the two paragraphs that fit come first; a heading does not end the run');
  const small = place([text(400), figure(450), { kind: 'heading', height: 40 }, { kind: 'rows', lead: 10, header: 10, rows: [10, 10] }, text(300)]);
  assert.deepEqual(small.order, [0, 2, 3, 1, 4], 'a heading and a small table that fit whole flow in too');
  assert.ok(moved.moved.has(1));

  const alone = place([text(400), figure(450), { kind: 'rows', lead: 10, header: 10, rows: [10, 300] }]);
  assert.deepEqual(alone.order, [0, 1, 2], 'with nothing after it that fits, the figure starts the next page at its size');
  assert.equal(alone.scales.get(1), 1);
});

/** Paragraphs of about four lines each, numbered so a test can find them. */
function paragraphs(count: number, from: number): { type: 'paragraph'; text: string }[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'paragraph' as const,
    text: `Para${from + index} opens this paragraph. ${'The weekly review found the orders in line with the plan, and the refunds were handled within two days. '.repeat(3)}`,
  }));
}

/** The lowest word on a page above its footer ("Page n of m"), in points from the top. */
function lowestText(page: PdfPage): number {
  return Math.max(...page.words.filter((word) => word.yMin < page.height - 60).map((word) => word.yMax));
}

const bars: [number, number, number] = [0x2f, 0x55, 0x97];

test('rendered by LibreOffice: a chart that does not fit under the text is shrunk or lets the text flow, and page 1 is not left mostly empty', async (t) => {
  const rendering = await renderHost(t, 'spillway-figures-');
  if (rendering === undefined) return;
  const { env, pdfDir } = rendering;
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/tall.png'), chartPng(600, 900));
  await writeFile(outputPath(env, 'outputs/wide.png'), chartPng(960, 600));
  const build = async (name: string, image: string, before: number) =>
    ok(
      await call(env, 'build_document', {
        format: 'docx',
        filename: `${name}.docx`,
        spec: {
          title: 'Weekly review',
          blocks: [
            { type: 'heading', text: 'Summary', level: 1 },
            ...paragraphs(before, 1),
            { type: 'image', path: `outputs/${image}`, title: 'Orders by week' },
            ...paragraphs(6, before + 1),
            { type: 'heading', text: 'Next steps', level: 1 },
            ...paragraphs(2, before + 7),
          ],
        },
      }),
    );
  const moved = await build('moved', 'tall.png', 6);
  const shrunk = await build('shrunk', 'wide.png', 6);
  assert.ok(
    moved.notes?.some((note) => /the text after it comes first .* "Figure 1"/.test(note)),
    JSON.stringify(moved.notes),
  );
  assert.ok(
    shrunk.notes?.some((note) => /shown at \d+% of its size/.test(note)),
    JSON.stringify(shrunk.notes),
  );
  const pdfs = await renderPdf(
    [moved.path, shrunk.path].map((relative) => outputPath(env, relative)),
    pdfDir,
  );

  for (const [name, pdf] of [
    ['moved', pdfs[0]],
    ['shrunk', pdfs[1]],
  ] as const) {
    const pages = await readPdf(pdf as string);
    const pixels = await readPixels(pdf as string, pdfDir);
    const first = pages[0] as PdfPage;
    const withChart = pixels.map((page) => rowsWithColour(page, bars)).flatMap((rows, index) => (rows === undefined ? [] : [{ index, rows }]));
    assert.equal(withChart.length, 1, `${name}: the chart is on one page (${withChart.map((page) => page.index + 1).join(', ')})`);
    const chart = withChart[0] as { index: number; rows: { top: number; bottom: number } };
    const scale = first.height / (pixels[chart.index]?.height ?? 1);
    const chartBottom = chart.rows.bottom * scale;
    const lowest = Math.max(lowestText(first), chart.index === 0 ? chartBottom : 0);
    assert.ok(lowest > first.height * 0.8, `${name}: page 1 is filled to ${Math.round(lowest)} of ${first.height} pt`);
    // The tallest bar is 90% of the picture: drawn whole, at its size (moved) or no less than 70% of it (shrunk).
    const natural = name === 'moved' ? 620 * 0.75 : 600 * (481.9 / 0.75 / 960) * 0.75;
    const drawn = (chart.rows.bottom - chart.rows.top) * scale;
    const least = 0.9 * natural * (name === 'moved' ? 1 : 0.7) * 0.95;
    assert.ok(drawn >= least && drawn <= natural, `${name}: the bars are ${Math.round(drawn)} pt tall (at least ${Math.round(least)})`);
    const chartPage = pages[chart.index] as PdfPage;
    // The caption's "week", not the reference line's "week)".
    const caption = chartPage.words.find((word, at, all) => word.text === 'week' && all[at - 2]?.text === 'Orders');
    assert.ok(caption !== undefined && caption.yMin > chartBottom, `${name}: the caption is under the chart on its page`);
    const order = pages.map((page) => page.text).join(' ');
    if (name === 'moved') {
      assert.equal(chart.index, 1, 'moved: the chart starts page 2');
      assert.ok(chart.rows.top * scale < 72 + 0.15 * 465, `moved: at the top of page 2 (${Math.round(chart.rows.top * scale)} pt)`);
      assert.match(first.text, /Figure 1 \(Orders by week\) follows below\./, 'moved: a line where the chart was asked for points to it');
      assert.ok(first.text.includes('Para7'), 'moved: the text after the chart flows onto page 1');
      assert.match(chartPage.text, /Figure 1: Orders by week/);
    } else {
      assert.equal(chart.index, 0, 'shrunk: the chart stays on page 1');
      assert.ok(order.indexOf('Para6') < order.indexOf('Orders by week') && order.indexOf('Orders by week') < order.indexOf('Para7'), 'shrunk: in place');
    }
  }
});
