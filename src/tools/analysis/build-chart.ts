import type { Static } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import type { FilesSqlEngine } from '../../analysis/files-sql-engine.js';
import type { ChartRenderer } from '../../charts/chart-renderer.js';
import type { TableSelection } from '../../analysis/selection-sql.js';
import { drawChart } from '../../charts/draw-chart.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { plainRequestedName, sourceStem } from '../files/output-name.js';
import { redactionNotes } from '../files/redaction-note.js';
import { formatCount } from '../../util/format.js';
import { buildChartOutput } from './analysis-output.js';
import { writesNewFile } from '../tool-annotations.js';

const SortKey = Type.Object(
  { column: Type.String({ minLength: 1 }), direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])) },
  { additionalProperties: false },
);

export const BuildChartInput = Type.Object(
  {
    source: Type.String({ minLength: 1, description: 'Sandbox path of the table to chart, e.g. a query_files result "results/0009-query_files.jsonl".' }),
    spec: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'A Vega-Lite specification WITHOUT data: mark, encoding (fields are the source\'s columns), optional transform, title, width, height. E.g. {"mark": "bar", "encoding": {"x": {"field": "country", "type": "nominal", "sort": "-y"}, "y": {"field": "n", "type": "quantitative"}}, "title": "Tickets by country"}.',
      },
    ),
    columns: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String({ minLength: 1 }),
          Type.Object({ name: Type.String({ minLength: 1 }), header: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false }),
        ]),
        {
          minItems: 1,
          description: 'Columns to bind (names, or {name, header} to rename); default all.',
        },
      ),
    ),
    sort: Type.Optional(Type.Union([SortKey, Type.Array(SortKey, { minItems: 1 })], { description: '{column, direction} or a list; empty values last.' })),
    range: Type.Optional(
      Type.Object(
        { start: Type.Integer({ minimum: 0 }), count: Type.Optional(Type.Integer({ minimum: 1 })) },
        { additionalProperties: false, description: 'Rows {start, count} after sorting (from 0).' },
      ),
    ),
    filename: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Plain name for outputs/ without folders, e.g. "tickets-by-country"; .svg and .png are added.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BuildChartArgs = Static<typeof BuildChartInput>;

/** A plain output stem: the requested name (its .svg/.png dropped) or the source's name. */
function chartStem(requested: string | undefined, source: string): string {
  if (requested === undefined) return `${sourceStem(source, 'chart')}-chart`;
  return plainRequestedName(requested, 'tickets-by-country').replace(/\.(svg|png)$/i, '');
}

/** build_chart: a Vega-Lite chart of a sandbox table, as SVG and PNG downloads in outputs/. */
export function buildChartTool(options: { engine: FilesSqlEngine; pool: ChartRenderer }): ToolDefinition {
  return defineTool({
    name: 'build_chart',
    longRunning: true,
    outputSchema: buildChartOutput,
    description: [
      "Draw a chart for the user from a table file, without the rows passing through you: give a Vega-Lite spec WITHOUT data (mark, encoding, transform, title) and the table's sandbox path as `source`; spillway binds the rows and renders an SVG and a PNG into outputs/ as downloads.",
      "Charts bind at most charts.maxRows rows: aggregate first with query_files (or query_sql), e.g. SELECT country, count(*) AS n FROM 'results/0003-list_tickets.jsonl' GROUP BY 1, and chart that result's path.",
      "Optional columns, sort and range as in export_table. Refused: data or datasets of the spec's own, URLs, image marks, raw Vega signals, input bindings, expression functions that build unbounded values.",
    ].join(' '),
    inputSchema: BuildChartInput,
    spill: false,
    annotations: writesNewFile('Build a chart'),
    async handler(args, context) {
      const stem = chartStem(args.filename, args.source);
      const selection: TableSelection = { source: args.source };
      if (args.columns !== undefined) selection.columns = args.columns;
      if (args.sort !== undefined) selection.sort = args.sort;
      if (args.range !== undefined) selection.range = args.range;
      const { sandbox, config, signal } = context;
      const { rows: rowCount, images } = await drawChart({ ...options, sandbox, config, spec: args.spec, selection, signal });
      const svg = await context.sandbox.writeFile(`outputs/${stem}.svg`, images.svg, { folders: ['outputs'], pickFreeName: true });
      const png = await context.sandbox.writeFile(`outputs/${stem}.png`, Buffer.from(images.png), { folders: ['outputs'], pickFreeName: true });
      const attachments = [
        describeAttachment(context.sandbox, png.absolute, images.png.byteLength),
        describeAttachment(context.sandbox, svg.absolute, Buffer.byteLength(images.svg)),
      ];
      const notes = await redactionNotes(context.sandbox, [args.source]);
      context.logger.info({ rows: rowCount, marks: images.marks, png: png.relative }, 'chart built');
      return {
        value: {
          message: `Charted ${formatCount(rowCount)} rows of ${args.source} (${formatCount(images.marks)} marks) as ${png.relative} (${images.width}×${images.height} px) and ${svg.relative}. The user gets both as downloads; describe the chart in words, do not repeat the rows.`,
          png: png.relative,
          svg: svg.relative,
          width: images.width,
          height: images.height,
          rows: rowCount,
          marks: images.marks,
          ...(notes.length > 0 ? { notes } : {}),
        },
        attachments,
      };
    },
  });
}
