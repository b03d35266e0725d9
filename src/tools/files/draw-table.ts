import { Type } from '@sinclair/typebox';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import { formatCount, plural } from '../../util/format.js';
import { selectionNotes } from '../../files/selection/selection-notes.js';
import type { FileToolServices } from './file-tool-services.js';
import { selectionFromArguments, selectionSchema } from '../../files/selection/selection.js';
import type { MarkdownResult, MarkdownTask } from '../../files/pool/worker-task.js';

/** draw_table: a Markdown table for the model's answer, capped at drawTable.maxRows. */
export function drawTableTool(services: FileToolServices): ToolDefinition {
  return defineTool({
    name: 'draw_table',
    description: (config) => [
      'Draw a Markdown table to show in your answer, read straight from a table file in the sandbox (e.g. the spill path "results/0007-query_sql.jsonl"). Pass the path, never the rows.',
      'Optional columns, sort and range work as in export_table.',
      `At most ${formatCount(config.drawTable.maxRows)} rows (drawTable.maxRows): above that the call is refused.` +
        ' Show only the rows the reader needs (sort, then range {"start": 0, "count": 20}) and give the full set as a file with export_table from the same path.',
    ].join(' '),
    inputSchema: Type.Object(
      {
        source: Type.String({ minLength: 1, description: 'Sandbox path of the table, e.g. "results/0007-query_sql.jsonl".' }),
        ...selectionSchema,
      },
      { additionalProperties: false },
    ),
    spill: false,
    annotations: { title: 'Draw a Markdown table', readOnlyHint: true, openWorldHint: false },
    async handler(args, context) {
      const selection = selectionFromArguments(args);
      const { source } = args;
      const task: MarkdownTask = {
        source: { kind: 'sandbox', root: services.sandboxRoot, conversationId: context.conversationId, path: source },
        selection,
        maxRows: context.config.drawTable.maxRows,
      };
      const result = await services.pool().run<MarkdownResult>('markdown', task, { signal: context.signal });
      const notes = selectionNotes({ source, selection, stats: result.stats });
      const of = result.stats.sourceRows !== undefined && result.stats.sourceRows !== result.rows ? ` of ${formatCount(result.stats.sourceRows)}` : '';
      const footer = `[${plural(result.rows, 'row')}${of} × ${plural(result.columns.length, 'column')} from ${source}. Copy the table into your answer as it is.${notes.length > 0 ? ` ${notes.join(' ')}` : ''}]`;
      return { value: `${result.markdown}\n\n${footer}` };
    },
  });
}
