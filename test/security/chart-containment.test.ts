import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { expressionProblem } from '../../src/charts/chart-expressions.js';
import { ChartPool } from '../../src/charts/chart-pool.js';
import { sanitizeSvg } from '../../src/charts/sanitize-svg.js';
import { SpillwayError } from '../../src/errors.js';
import { call, filesHost, spillRows } from '../files/helpers.js';
import { processEnded, procEntry, untilProcessEnded } from '../helpers/process-ended.js';

// Issue 20, "no single call can take the server down": each spec below once ended the whole
// server in V8's "heap out of memory" or resvg's native pixel buffer. Now each is refused before
// rendering, or ends its own chart process; another conversation's call completes meanwhile, the
// host's memory stays within a bound, and the next chart renders.

const rows = Array.from({ length: 60 }, (_, index) => ({
  id: index,
  country: ['DE', 'FR', 'NL'][index % 3],
  hours: (index % 7) + 1,
  link: 'url(http://evil.example/x)',
}));
const bar = { mark: 'bar', encoding: { x: { field: 'country', type: 'nominal' }, y: { aggregate: 'sum', field: 'hours', type: 'quantitative' } } };
const gib = 1024 * 1024 * 1024;
/** What a chart process's command line holds. */
const chartChild = `workers${path.sep}chart.js`;

/** Chart processes this test process started (children whose command line runs workers/chart.js). */
function chartProcesses(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const entry = procEntry(pid);
      return entry !== undefined && entry.parent === process.pid && entry.commandLine.includes(chartChild);
    })
    .map(Number);
}

/** The chart process `pid` has ended (see processEnded: a zombie or a reused pid counts as ended). */
const gone = (pid: number): boolean => processEnded(pid, chartChild);

function deep(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return value;
}

const crashSpecs: [string, Record<string, unknown>, string, string?][] = [
  [
    'an escaped \\u0073equence in a calculate',
    { ...bar, transform: [{ calculate: '\\u0073equence(0, 100000000)', as: 'q' }] },
    'CHART_SPEC_INVALID',
    'sequence',
  ],
  ['sequence in a param expr', { ...bar, params: [{ name: 'p', expr: 'length(s\\u0065quence (0, 1e9))' }] }, 'CHART_SPEC_INVALID', 'sequence'],
  ['sequence in a mark property expr', { ...bar, mark: { type: 'bar', opacity: { expr: 'peek(sequence(0, 3e8))' } } }, 'CHART_SPEC_INVALID', 'sequence'],
  [
    'impute keyvals 0..3e8',
    {
      mark: 'line',
      encoding: { x: { field: 'id', type: 'quantitative', impute: { keyvals: { start: 0, stop: 3e8 } } }, y: { field: 'hours', type: 'quantitative' } },
    },
    'CHART_TOO_LARGE',
    'keyvals',
  ],
  [
    'bin maxbins 1e9',
    { mark: 'bar', encoding: { x: { field: 'hours', bin: { maxbins: 1e9 }, type: 'quantitative' }, y: { aggregate: 'count' } } },
    'CHART_TOO_LARGE',
    'maxbins',
  ],
  [
    'a bin step that makes millions of bins over the data (found in the chart process)',
    { mark: 'bar', encoding: { x: { field: 'id', bin: { step: 1e-5 }, type: 'quantitative' }, y: { aggregate: 'count' } } },
    'CHART_TOO_LARGE',
    'bins',
  ],
  ['a 60000×60000 chart', { ...bar, width: 60_000, height: 60_000 }, 'CHART_TOO_LARGE', 'charts.maxPixels'],
  ['a 1e7×10 chart', { ...bar, width: 1e7, height: 10 }, 'CHART_TOO_LARGE', 'charts.maxPixels'],
  [
    'facet cells that add up past the size caps (found from the SVG, before resvg)',
    { facet: { field: 'id' }, columns: 60, spec: { ...bar, width: 4000, height: 4000 } },
    'CHART_TOO_LARGE',
    'charts.maxPixels',
  ],
  ['an href encoding', { ...bar, encoding: { ...bar.encoding, href: { field: 'link' } } }, 'CHART_SPEC_INVALID', 'href'],
  ['an href on the mark', { ...bar, mark: { type: 'bar', href: 'http://evil.example/' } }, 'CHART_SPEC_INVALID', 'href'],
  [
    'a custom formatType naming sequence (only the compiled Vega spec shows the call)',
    { ...bar, config: { customFormatTypes: true }, encoding: { ...bar.encoding, y: { ...bar.encoding.y, axis: { format: '1e9', formatType: 'sequence' } } } },
    'CHART_SPEC_INVALID',
    'compiled',
  ],
  ['a width that fits its container', { ...bar, width: 'container' }, 'CHART_SPEC_INVALID', 'container'],
  ['a spec nested 1,000 levels deep', { ...bar, usermeta: deep(1000) }, 'CHART_SPEC_INVALID', 'nested'],
  [
    'an expression nested 5,000 parentheses deep',
    { ...bar, transform: [{ calculate: `${'('.repeat(5000)}1${')'.repeat(5000)}`, as: 'q' }] },
    'CHART_SPEC_INVALID',
  ],
  ['a tick count of a billion', { ...bar, encoding: { ...bar.encoding, y: { ...bar.encoding.y, axis: { tickCount: 1e9 } } } }, 'CHART_TOO_LARGE', 'tickCount'],
];

test('each spec that once took the server down (slow: each runs a chart process to its limit) ends in a coded error while another conversation works; host RSS grows < 1 GB; the next chart renders', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  const before = process.memoryUsage().rss;
  for (const [name, spec, code, words] of crashSpecs) {
    const [chart, other] = await Promise.all([call(env, 'build_chart', { source, spec }), call(env, 'query_files', { sql: 'SELECT 1 AS one' }, 'c2')]);
    assert.equal(chart.isError, true, `${name}: should fail`);
    assert.equal(chart.error?.code, code, `${name}: ${chart.text.slice(0, 400)}`);
    if (words !== undefined)
      assert.ok(chart.text.includes(words) || JSON.stringify(chart.error?.details).includes(words), `${name}: ${chart.text.slice(0, 400)}`);
    assert.equal(other.isError, false, `${name}: the other conversation's query: ${other.text.slice(0, 300)}`);
  }
  const grew = process.memoryUsage().rss - before;
  assert.ok(grew < gib, `the host's RSS grew by ${Math.round(grew / 1024 / 1024)} MB`);
  assert.deepEqual(await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs')).catch(() => []), [], 'no chart file was written');
  const next = await call(env, 'build_chart', { source, spec: bar });
  assert.equal(next.isError, false, next.text);
});

test('a refused expression names its JSON pointer', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  const result = await call(env, 'build_chart', {
    source,
    spec: { ...bar, transform: [{ filter: 'datum.hours > 1' }, { calculate: 'pad("x", 1e9)', as: 'q' }] },
  });
  assert.equal(result.error?.code, 'CHART_SPEC_INVALID');
  assert.equal(result.error?.details?.pointer, '/transform/1/calculate');
});

test('a chart that passes every check but needs more heap than charts.memoryBytes ends its chart process with CHART_TOO_LARGE; the host and the next chart go on', async (t) => {
  // impute over 1,500 keys × 1,500 groups builds 2.25 million rows: far more than 128 MB of heap.
  const env = await filesHost({ charts: { memoryBytes: 128 * 1024 * 1024 } });
  t.after(() => env.cleanup());
  const cross = Array.from({ length: 1500 }, (_, index) => ({ k: index, g: `g${index}`, v: index % 7 }));
  const source = await spillRows(env, cross);
  const small = await spillRows(env, rows);
  const before = process.memoryUsage().rss;
  const spec = {
    mark: 'line',
    transform: [{ impute: 'v', key: 'k', groupby: ['g'], value: 0 }],
    encoding: { x: { field: 'k', type: 'quantitative' }, y: { field: 'v', type: 'quantitative' } },
  };
  const [chart, other] = await Promise.all([call(env, 'build_chart', { source, spec }), call(env, 'query_files', { sql: 'SELECT 1 AS one' }, 'c2')]);
  assert.equal(chart.error?.code, 'CHART_TOO_LARGE', chart.text);
  assert.equal(chart.error?.details?.limit, 'charts.memoryBytes');
  assert.equal(other.isError, false, other.text);
  assert.ok(process.memoryUsage().rss - before < gib, "the host's RSS stayed within 1 GB of where it was");
  const next = await call(env, 'build_chart', { source: small, spec: bar });
  assert.equal(next.isError, false, next.text);
});

test('a colour or a row value that is an external url() never reaches the chart SVG', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  const specs = [
    { ...bar, encoding: { ...bar.encoding, color: { value: 'url(http://evil.example/a)' } } },
    { ...bar, encoding: { ...bar.encoding, color: { value: 'u\\72l(http://evil.example/b)' } } },
    {
      mark: 'point',
      encoding: { x: { field: 'id', type: 'quantitative' }, y: { field: 'hours', type: 'quantitative' }, fill: { field: 'link', scale: null } },
    },
  ];
  for (const [index, spec] of specs.entries()) {
    const result = await call(env, 'build_chart', { source, spec, filename: `chart-${index}` });
    assert.equal(result.isError, false, result.text);
    const svg = await readFile(path.join(env.host.sandbox.conversation('c1').dir, 'outputs', `chart-${index}.svg`), 'utf8');
    // The row's value may stay as text (an aria-label describes the mark); no attribute refers to it.
    const references = svg.replace(/aria-label="[^"]*"/g, '').match(/[^\s<>]*evil\.example[^\s<>]*/g);
    assert.equal(references, null, `chart ${index} keeps an external reference: ${references?.join(' ')}`);
    assert.match(svg, /<path /);
  }
});

test('the SVG sanitizer strips external url() and href in every spelling, and keeps #id and data: references', () => {
  const svg = [
    '<svg xmlns="http://www.w3.org/2000/svg"><defs><linearGradient id="g1"/></defs>',
    '<path fill="url(#g1)" stroke="url(http://a.example/x)"/>',
    '<path fill="url(&quot;http://b.example/x&quot;)"/>',
    '<path fill="u\\72l(http://c.example/x)"/>',
    '<path style="fill: URL( \'//d.example/x\' )"/>',
    '<path fill="url(&#x68;ttp://e.example/x)"/>',
    '<a xlink:href="http://f.example/">x</a><use href="#g1"/><image href="data:image/png;base64,AAAA"/>',
    '<text aria-label="url(http://g.example) is text">url(http://h.example)</text></svg>',
  ].join('');
  const clean = sanitizeSvg(svg);
  for (const host of 'abcdef') assert.doesNotMatch(clean, new RegExp(`${host}\\.example`), host);
  assert.match(clean, /fill="url\(#g1\)"/);
  assert.match(clean, /<use href="#g1"\/>/);
  assert.match(clean, /href="data:image\/png/);
  assert.match(clean, /g\.example/, 'a text attribute stays');
  assert.match(clean, />url\(http:\/\/h\.example\)</, 'text content stays text');
});

const refusedNames = [
  'sequence',
  'pad',
  'data',
  'indata',
  'modify',
  'setdata',
  'vlSelectionTest',
  'vlSelectionResolve',
  'timer',
  'random',
  'timeSequence',
  'sampleNormal',
];
const allowedNames = ['abs', 'floor', 'format', 'timeFormat', 'upper', 'lower', 'substring', 'datetime', 'isValid', 'if'];

/** An identifier spelled with random \uXXXX escapes, as the JSON string would carry it to Vega's parser. */
const spelled = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((escapes) => [...name].map((char, index) => (escapes[index] === true ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char)).join(''));
const space = fc.constantFrom('', ' ', '  ', '\t', '\n', ' \n ');
const context = fc.constantFrom('X', '1 + X', 'datum.a ? X : 0', '[1, X]', "{a: X}['a']", 'if(true, X, 1)', 'abs(X)', '(X)', '!X', 'X.length');

test('property: an expression that calls a refused function is never accepted, however the name is spelled; allowed functions are', () => {
  const call = (names: string[]) =>
    fc
      .tuple(fc.constantFrom(...names), space, space, context)
      .chain(([name, before, after, around]) => spelled(name).map((identifier) => around.replace('X', `${before}${identifier}${after}(1, 2)`)));
  fc.assert(
    fc.property(call(refusedNames), (expression) => {
      assert.notEqual(expressionProblem(expression), undefined, expression);
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(call(allowedNames), (expression) => {
      assert.equal(expressionProblem(expression), undefined, expression);
    }),
    { numRuns: 300 },
  );
});

test('no chart process outlives the host, idle or in the middle of a chart', async () => {
  const env = await filesHost();
  const source = await spillRows(env, rows);
  const drawn = await call(env, 'build_chart', { source, spec: bar });
  assert.equal(drawn.isError, false, drawn.text);
  const warm = chartProcesses();
  assert.equal(warm.length, 1, 'one warm chart process after a chart');
  await env.cleanup();
  assert.deepEqual(
    warm.filter((pid) => !gone(pid)),
    [],
  );
  assert.deepEqual(chartProcesses(), []);

  // A pool closed while a heavy chart renders: the call fails with a coded error and the process is gone.
  const pool = new ChartPool({ threads: 1, maxQueue: 4 });
  const cross = Array.from({ length: 1500 }, (_, index) => ({ k: index, g: `g${index}`, v: index % 7 }));
  const spec = {
    mark: 'line',
    transform: [{ impute: 'v', key: 'k', groupby: ['g'], value: 0 }],
    encoding: { x: { field: 'k', type: 'quantitative' }, y: { field: 'v' } },
  };
  const rendering = pool.render({ spec, rows: cross, maxMarks: 20_000, scale: 1 }, { timeoutMs: 600_000 });
  while (pool.processIds().length === 0) await new Promise((resolve) => setImmediate(resolve));
  const running = pool.processIds();
  assert.equal(running.length, 1, 'the chart has its process');
  await pool.close();
  await assert.rejects(rendering, (error: unknown) => SpillwayError.is(error) && error.code === 'CHART_FAILED');
  assert.deepEqual(
    running.filter((pid) => !gone(pid)),
    [],
  );
});

/** Resolves once the process is gone (the shared bounded condition wait; nothing is decided by time). */
function untilGone(pid: number): Promise<void> {
  return untilProcessEnded(pid, chartChild, 'a chart process');
}

test('a chart process is reused while it stays small, ended when its RSS passed the bound after a call, and replaced when charts.memoryBytes changes', async (t) => {
  const request = { spec: bar, rows, maxMarks: 20_000, scale: 1 };
  const options = { timeoutMs: 60_000 };
  let memoryBytes = 512 * 1024 * 1024;
  const pool = new ChartPool({ threads: 1, maxQueue: 4, memoryBytes: () => memoryBytes });
  t.after(() => pool.close());
  await pool.render(request, options);
  const [first] = pool.processIds();
  assert.ok(first !== undefined);
  await pool.render(request, options);
  assert.deepEqual(pool.processIds(), [first], 'the warm process served the second chart');
  memoryBytes = 256 * 1024 * 1024;
  await pool.render(request, options);
  const [second] = pool.processIds();
  assert.ok(second !== undefined && second !== first, 'a new cap, a new process');
  await untilGone(first);

  const small = new ChartPool({ threads: 1, maxQueue: 4, recycleRssBytes: 1 });
  t.after(() => small.close());
  const rendering = small.render(request, options);
  while (small.processIds().length === 0) await new Promise((resolve) => setImmediate(resolve));
  const [recycled] = small.processIds();
  await rendering;
  assert.deepEqual(small.processIds(), [], 'a process past the RSS bound is not kept');
  await untilGone(recycled as number);
});
