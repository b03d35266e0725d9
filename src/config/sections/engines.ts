import { Type } from '@sinclair/typebox';
import { oneOf } from '../../util/schema-builders.js';
import { closed, variant } from './parts.js';

/** Configuration keys for the engines that run model-chosen work: scripts, SQL, DuckDB over files, charts. */

export const sqlSource = oneOf(
  [
    variant(
      'type',
      'demo',
      {},
      {
        description:
          'demo: the embedded SQLite database, built from demo.seed in data.dir on first start. sqlite: a SQLite file, opened read-only. postgres: a PostgreSQL server, every query in a READ ONLY transaction.',
      },
    ),
    variant('type', 'sqlite', {
      file: Type.String({ minLength: 1, description: 'Path of an existing SQLite database file; opened read-only and never created or changed.' }),
    }),
    variant('type', 'postgres', {
      url: Type.String({
        pattern: '^postgres(ql)?://',
        description:
          "Connection URL, e.g. postgres://reader:secret@db.internal:5432/shop. Use a role with SELECT rights only: the read-only transaction stops writes to the database, the role's rights govern functions with effects outside it.",
      }),
    }),
  ],
  { description: 'Which database query_sql reads.', default: { type: 'demo' } },
);

export const scriptSchema = Type.Object(
  {
    timeoutMs: Type.Integer({ minimum: 1, default: 10_000, description: 'Wall time of one run.' }),
    memoryBytes: Type.Integer({ minimum: 1_048_576, default: 134_217_728, description: 'QuickJS heap limit.' }),
    stackBytes: Type.Integer({
      minimum: 16_384,
      maximum: 262_144,
      default: 262_144,
      description: 'QuickJS stack limit (above 256 KiB deep recursion can corrupt the runtime).',
    }),
    maxReadBytes: Type.Integer({ minimum: 1, default: 268_435_456, description: 'Bytes one run may read from the sandbox.' }),
    maxWriteBytes: Type.Integer({ minimum: 1, default: 67_108_864, description: 'Bytes one run may write.' }),
    maxOutputChars: Type.Integer({ minimum: 1, default: 1_000_000, description: 'Characters of console output kept from one run.' }),
  },
  { ...closed, description: 'Limits of run_script (QuickJS in a worker).' },
);

export const sqlSchema = Type.Object(
  {
    source: sqlSource,
    maxRows: Type.Integer({ minimum: 1, default: 100_000, description: 'Rows one query returns at most; the true total is still reported.' }),
    maxBytes: Type.Integer({
      minimum: 1024,
      default: 67_108_864,
      description:
        'Bytes (as JSON rows) one query returns at most, enforced in the query process; a result cut by it says so (cutAtBytes), and a single row larger than it is refused with RESULT_TOO_LARGE.',
    }),
    timeoutMs: Type.Integer({ minimum: 1, default: 30_000, description: 'A query running longer is interrupted.' }),
    maxConcurrent: Type.Integer({ minimum: 1, default: 2, description: 'Queries running at once; more wait for a slot.' }),
    maxWaiting: Type.Integer({ minimum: 0, default: 16, description: 'Queries waiting for a slot at most; more are refused with BUSY.' }),
  },
  { ...closed, description: 'The query_sql tool.' },
);

export const analysisSchema = Type.Object(
  {
    maxRows: Type.Integer({ minimum: 1, default: 100_000, description: 'Rows one query_files query returns at most; the true total is still reported.' }),
    timeoutMs: Type.Integer({
      minimum: 1,
      default: 30_000,
      description: 'A query running longer has its process killed (SQL_TIMEOUT); counted from when DuckDB is loaded.',
    }),
    memoryBytes: Type.Integer({ minimum: 16_777_216, default: 536_870_912, description: "DuckDB's memory_limit for one query (nothing spills to disk)." }),
    maxBytes: Type.Integer({
      minimum: 1024,
      default: 16_777_216,
      description:
        'Bytes (as JSON rows) one query_files query returns at most, measured in the DuckDB process while rows are read; a result cut by it says so (cutAtBytes), and a single row larger than it is refused with RESULT_TOO_LARGE.',
    }),
    threads: Type.Integer({ minimum: 1, maximum: 64, default: 1, description: 'DuckDB threads for one query.' }),
    maxConcurrent: Type.Integer({ minimum: 1, default: 2, description: 'File queries running at once across all conversations.' }),
    maxWaiting: Type.Integer({ minimum: 0, default: 16, description: 'File queries waiting for a slot at most; more are refused with SQL_BUSY.' }),
  },
  {
    ...closed,
    description: "query_files (and Parquet exports, chart rows): read-only DuckDB SQL over the conversation's own files, each query in its own child process.",
  },
);

export const chartsSchema = Type.Object(
  {
    maxRows: Type.Integer({
      minimum: 1,
      default: 5000,
      description: 'Rows a chart may bind at most; more is refused (CHART_TOO_LARGE) with a hint to aggregate in SQL first.',
    }),
    maxMarks: Type.Integer({ minimum: 1, default: 20_000, description: 'Marks (bars, points, lines, labels) a rendered chart may hold at most.' }),
    timeoutMs: Type.Integer({ minimum: 1, default: 20_000, description: 'Rendering longer than this is stopped (the chart process is killed).' }),
    scale: Type.Number({ minimum: 0.5, maximum: 4, default: 2, description: 'PNG pixels per SVG unit (2 gives a sharp image on high-density screens).' }),
    maxPixels: Type.Integer({
      minimum: 10_000,
      maximum: 268_435_456,
      default: 16_777_216,
      description: "A chart's PNG area at most, in pixels at charts.scale (4096 × 4096 by default); a larger width × height is refused (CHART_TOO_LARGE).",
    }),
    memoryBytes: Type.Integer({
      minimum: 67_108_864,
      default: 1_073_741_824,
      description:
        "Heap of one chart process (V8's --max-old-space-size); a chart that needs more fails with CHART_TOO_LARGE and the next chart gets a fresh process.",
    }),
  },
  { ...closed, description: 'build_chart: Vega-Lite rendered to SVG and PNG in a child process with a capped heap and a deadline.' },
);
