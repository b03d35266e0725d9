import { Type } from '../../util/type-builder.js';
import { oneOf } from '../../util/schema-builders.js';
import { closed, integerKey, section, variant } from './parts.js';

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

export const scriptSchema = section('Limits of run_script (QuickJS in a worker).', {
  timeoutMs: integerKey(1, 10_000, 'Wall time of one run.'),
  memoryBytes: integerKey(1_048_576, 134_217_728, 'QuickJS heap limit.'),
  stackBytes: integerKey(16_384, 262_144, 'QuickJS stack limit (above 256 KiB deep recursion can corrupt the runtime).', { maximum: 262_144 }),
  maxReadBytes: integerKey(1, 268_435_456, 'Bytes one run may read from the sandbox.'),
  maxWriteBytes: integerKey(1, 67_108_864, 'Bytes one run may write.'),
  maxOutputChars: integerKey(1, 1_000_000, 'Characters of console output kept from one run.'),
});

export const sqlSchema = section('The query_sql tool.', {
  source: sqlSource,
  maxRows: integerKey(1, 100_000, 'Rows one query returns at most; the true total is still reported.'),
  maxBytes: integerKey(
    1024,
    67_108_864,
    'Bytes (as JSON rows) one query returns at most, enforced in the query process; a result cut by it says so (cutAtBytes), and a single row larger than it is refused with RESULT_TOO_LARGE.',
  ),
  timeoutMs: integerKey(1, 30_000, 'A query running longer is interrupted.'),
  maxConcurrent: integerKey(1, 2, 'Queries running at once; more wait for a slot.'),
  maxWaiting: integerKey(0, 16, 'Queries waiting for a slot at most; more are refused with BUSY.'),
});

export const analysisSchema = Type.Object(
  {
    maxRows: integerKey(1, 100_000, 'Rows one query_files query returns at most; the true total is still reported.'),
    timeoutMs: integerKey(1, 30_000, 'A query running longer has its process killed (SQL_TIMEOUT); counted from when DuckDB is loaded.'),
    memoryBytes: integerKey(16_777_216, 536_870_912, "DuckDB's memory_limit for one query (nothing spills to disk)."),
    maxBytes: integerKey(
      1024,
      16_777_216,
      'Bytes (as JSON rows) one query_files query returns at most, measured in the DuckDB process while rows are read; a result cut by it says so (cutAtBytes), and a single row larger than it is refused with RESULT_TOO_LARGE.',
    ),
    threads: integerKey(1, 1, 'DuckDB threads for one query.', { maximum: 64 }),
    maxConcurrent: integerKey(1, 2, 'File queries running at once across all conversations.'),
    maxWaiting: integerKey(0, 16, 'File queries waiting for a slot at most; more are refused with SQL_BUSY.'),
  },
  {
    ...closed,
    description: "query_files (and Parquet exports, chart rows): read-only DuckDB SQL over the conversation's own files, each query in its own child process.",
  },
);

export const chartsSchema = section('build_chart: Vega-Lite rendered to SVG and PNG in a child process with a capped heap and a deadline.', {
  maxRows: integerKey(1, 5000, 'Rows a chart may bind at most; more is refused (CHART_TOO_LARGE) with a hint to aggregate in SQL first.'),
  maxMarks: integerKey(1, 20_000, 'Marks (bars, points, lines, labels) a rendered chart may hold at most.'),
  timeoutMs: integerKey(1, 20_000, 'Rendering longer than this is stopped (the chart process is killed).'),
  scale: Type.Number({ minimum: 0.5, maximum: 4, default: 2, description: 'PNG pixels per SVG unit (2 gives a sharp image on high-density screens).' }),
  maxPixels: integerKey(
    10_000,
    16_777_216,
    "A chart's PNG area at most, in pixels at charts.scale (4096 × 4096 by default); a larger width × height is refused (CHART_TOO_LARGE).",
    { maximum: 268_435_456 },
  ),
  memoryBytes: integerKey(
    67_108_864,
    1_073_741_824,
    "Heap of one chart process (V8's --max-old-space-size); a chart that needs more fails with CHART_TOO_LARGE and the next chart gets a fresh process.",
  ),
});
