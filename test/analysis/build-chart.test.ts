import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { call, filesHost, spillRows } from '../files/helpers.js';
import { connectHttpClient } from '../helpers/http-client.js';

const tickets = Array.from({ length: 900 }, (_, index) => ({ id: index + 1, country: ['DE', 'FR', 'NL'][index % 3], hours: (index % 7) + (index % 3) }));

/** Width and height from a PNG's IHDR chunk (after checking the signature). */
function pngSize(data: Buffer): { width: number; height: number } {
  assert.deepEqual([...data.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(data.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

test('over MCP: query_files aggregates, build_chart draws it as a PNG of the expected size and an SVG with one bar per group', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'list_tickets', description: 'tickets', inputSchema: { type: 'object' }, handler: () => ({ value: tickets }) });
  const { client, sessionId } = await connectHttpClient(t, env.host);

  const spill = ((await client.callTool({ name: 'list_tickets', arguments: {} }))._meta as Record<string, { path: string }>)['spillway/spill']?.path;
  const grouped = await client.callTool({
    name: 'query_files',
    arguments: { sql: `SELECT country, sum(hours) AS hours FROM '${spill}' GROUP BY 1 ORDER BY 1` },
  });
  const groupedPath = (grouped._meta as Record<string, { path: string }>)['spillway/spill']?.path;
  assert.ok(groupedPath, 'the query result was saved (threshold 1 character in this test)');

  const chart = await client.callTool({
    name: 'build_chart',
    arguments: {
      source: groupedPath,
      spec: {
        mark: 'bar',
        encoding: { x: { field: 'country', type: 'nominal' }, y: { field: 'hours', type: 'quantitative' } },
        title: 'Hours by country',
        width: 400,
        height: 300,
      },
      filename: 'hours-by-country',
    },
  });
  assert.equal(chart.isError, false, JSON.stringify(chart.content));
  const links = (chart.content as { type: string; uri?: string; name?: string; mimeType?: string }[]).filter((block) => block.type === 'resource_link');
  assert.deepEqual(
    links.map((link) => [link.name, link.mimeType]),
    [
      ['hours-by-country.png', 'image/png'],
      ['hours-by-country.svg', 'image/svg+xml'],
    ],
  );
  const folder = path.join(env.host.sandbox.conversation(sessionId).dir, 'outputs');
  const png = await readFile(path.join(folder, 'hours-by-country.png'));
  const size = pngSize(png);
  // 400×300 plot plus axes and title, at scale 2.
  assert.ok(size.width > 800 && size.width < 1200, `width ${size.width}`);
  assert.ok(size.height > 600 && size.height < 900, `height ${size.height}`);
  const svg = await readFile(path.join(folder, 'hours-by-country.svg'), 'utf8');
  const bars = /<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/s.exec(svg)?.[1] ?? '';
  assert.equal((bars.match(/<path /g) ?? []).length, 3, 'one bar per country');
  assert.match(svg, /Hours by country/);
  for (const country of ['DE', 'FR', 'NL']) assert.match(svg, new RegExp(`>${country}<`));
});

test('build_chart refuses specs with data, URLs, signals or unbounded expressions, and charts over the row or mark cap; nothing is written', async (t) => {
  const env = await filesHost({ charts: { maxRows: 500, maxMarks: 100, timeoutMs: 60_000, scale: 1 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, tickets);
  const small = await spillRows(env, tickets.slice(0, 200));
  // Text that expressions multiply tenfold per step: 30 rows of 600,000 characters after five steps.
  const texts = await spillRows(
    env,
    Array.from({ length: 30 }, (_, i) => ({ i, s: 'abcdef' })),
  );
  const multiplied = Array.from({ length: 5 }, (_, step) => ({ calculate: `replace(datum.s${step || ''}, /./g, '0123456789')`, as: `s${step + 1}` }));
  const bar = { mark: 'bar', encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'sum', field: 'hours', type: 'quantitative' } } };
  const cases: [Record<string, unknown>, string, string][] = [
    [{ source: small, spec: { ...bar, data: { url: 'https://example.com/data.csv' } } }, 'CHART_SPEC_INVALID', 'data'],
    [{ source: small, spec: { ...bar, data: { values: [{ country: 'XX', hours: 1 }] } } }, 'CHART_SPEC_INVALID', 'data'],
    [{ source: small, spec: { layer: [{ ...bar, data: { url: 'file:///etc/passwd' } }] } }, 'CHART_SPEC_INVALID', 'data'],
    [{ source: small, spec: { ...bar, transform: [{ lookup: 'country', from: { data: { url: 'x.csv' }, key: 'k' } }] } }, 'CHART_SPEC_INVALID', 'data'],
    [{ source: small, spec: { ...bar, params: [{ name: 'p', expr: 'length(sequence(0, 1e9))' }] } }, 'CHART_SPEC_INVALID', 'sequence'],
    [{ source: small, spec: { ...bar, transform: [{ calculate: "pad('x', 1e9)", as: 'y' }] } }, 'CHART_SPEC_INVALID', 'pad'],
    [{ source: small, spec: { ...bar, signals: [{ name: 's', on: [{ events: 'timer{1}', update: 's + 1' }] }] } }, 'CHART_SPEC_INVALID', 'signals'],
    [{ source: small, spec: { mark: 'image', encoding: { url: { field: 'u' } } } }, 'CHART_SPEC_INVALID', 'image'],
    [{ source: small, spec: { ...bar, params: [{ name: 'q', bind: { input: 'range' } }] } }, 'CHART_SPEC_INVALID', 'bind'],
    [{ source: small, spec: { mark: 'bar', encoding: { x: { field: 'country', type: 'nonsense' } } } }, 'CHART_SPEC_INVALID', 'compile'],
    [{ source, spec: bar }, 'CHART_TOO_LARGE', 'charts.maxRows'],
    [
      { source: small, spec: { mark: 'point', encoding: { x: { field: 'id', type: 'quantitative' }, y: { field: 'hours', type: 'quantitative' } } } },
      'CHART_TOO_LARGE',
      'charts.maxMarks',
    ],
    [
      { source: texts, spec: { transform: multiplied, mark: 'point', encoding: { x: { field: 'i', type: 'quantitative' }, description: { field: 's5' } } } },
      'CHART_TOO_LARGE',
      'SVG',
    ],
    [{ source: '/etc/passwd', spec: bar }, 'PATH_ABSOLUTE', 'Absolute'],
    [{ source: small, spec: bar, filename: '../escape' }, 'INVALID_ARGUMENTS', 'plain name'],
  ];
  for (const [args, code, words] of cases) {
    const result = await call(env, 'build_chart', args);
    assert.equal(result.isError, true, `${JSON.stringify(args.spec)} should fail`);
    assert.equal(result.error?.code, code, `${JSON.stringify(args.spec)}: ${result.text.slice(0, 300)}`);
    assert.ok(result.text.toLowerCase().includes(words.toLowerCase()) || code === 'CHART_SPEC_INVALID', `${code}: ${result.text.slice(0, 300)}`);
  }
  assert.match((await call(env, 'build_chart', { source, spec: bar })).text, /query_files/);
  assert.deepEqual(await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs')).catch(() => []), [], 'no chart file was written');
  // The same spec over a small enough source renders.
  const ok = await call(env, 'build_chart', { source: small, spec: bar });
  assert.equal(ok.isError, false, ok.text);
  assert.equal(ok.attachments.length, 2);
});

test('a chart past charts.timeoutMs has its chart process killed with a coded error, and the host keeps serving and draws the next chart', async (t) => {
  // 1 ms: no chart compiles and renders that fast, so the deadline always fires first. It starts once the
  // chart process has Vega loaded and the process is killed (SIGKILL): nothing of the host is mid-load.
  const env = await filesHost({ charts: { maxRows: 500, maxMarks: 1000, timeoutMs: 1, scale: 1 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, tickets.slice(0, 30));
  const result = await call(env, 'build_chart', {
    source,
    spec: { mark: 'bar', encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'count', type: 'quantitative' } } },
  });
  assert.equal(result.error?.code, 'CHART_FAILED', result.text);
  assert.equal(result.error?.details?.limit, 'charts.timeoutMs');
  const next = await call(env, 'query_files', { sql: `SELECT count(*) AS n FROM '${source}'` });
  assert.equal(next.isError, false, next.text);
  assert.deepEqual(await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs')).catch(() => []), []);
  // The killed process is replaced: with a deadline it can meet, the next chart renders.
  env.host.updateConfig({ ...env.host.config, charts: { ...env.host.config.charts, timeoutMs: 60_000 } });
  const drawn = await call(env, 'build_chart', {
    source,
    spec: { mark: 'bar', encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'count' } } },
  });
  assert.equal(drawn.isError, false, drawn.text);
});

test('rows past analysis.maxBytes are refused, never charted in part', async (t) => {
  const env = await filesHost({ analysis: { maxBytes: 4096 }, charts: { maxRows: 500, maxMarks: 1000, scale: 1 } });
  t.after(() => env.cleanup());
  const wide = tickets.slice(0, 100).map((row) => ({ ...row, note: 'n'.repeat(200) }));
  const source = await spillRows(env, wide);
  const result = await call(env, 'build_chart', {
    source,
    spec: { mark: 'bar', encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'count', type: 'quantitative' } } },
  });
  assert.equal(result.error?.code, 'CHART_TOO_LARGE', result.text);
  assert.equal(result.error?.details?.limit, 'analysis.maxBytes');
  // The columns the spec uses fit: the same chart renders.
  const narrow = await call(env, 'build_chart', {
    source,
    columns: ['country'],
    spec: { mark: 'bar', encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'count', type: 'quantitative' } } },
  });
  assert.equal(narrow.isError, false, narrow.text);
});
