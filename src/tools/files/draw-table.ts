import { Type } from '../../util/type-builder.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import { formatCount } from '../../util/format.js';
import { selectionNotes } from '../../files/selection/selection-notes.js';
import type { FileToolServices } from './file-tool-services.js';
import { selectionFromArguments, selectionSchema } from '../../files/selection/selection.js';
import type { MarkdownResult, MarkdownTask } from '../../files/pool/worker-task.js';
import { drawTableOutput } from './file-tool-output.js';
import { checkLocale } from '../../files/columns/format-values.js';
import { checkTimeZone } from '../../files/columns/iso-date.js';
import { zoneNote } from '../../files/columns/time-zone-label.js';
import { drawTableFooter, inlineTableBytes } from './draw-table-footer.js';

/** draw_table: a Markdown table for the model's answer, capped at drawTable.maxRows. */
export function drawTableTool(services: FileToolServices): ToolDefinition {
  return defineTool({
    name: 'draw_table',
    longRunning: true,
    outputSchema: drawTableOutput,
    description: (config) =>
      [
        'Draw a Markdown table to show in your answer, read straight from a table file in the sandbox (e.g. the spill path "results/0007-query_sql.jsonl"). Pass the path, never the rows.',
        'Optional columns, sort and range work as in export_table.',
        `At most ${formatCount(config.drawTable.maxRows)} rows (drawTable.maxRows): above that the call is refused.` +
          ' Show only the rows the reader needs (sort, then range {"start": 0, "count": 20}) and give the full set as a file with export_table from the same path.',
        'Numbers and dates are formatted (columns may carry a "format"; locale, default "en-US"); timestamps with UTC offsets and epoch time columns are shown in timeZone (IANA, default "UTC"), and the header names it. A table too large to read inline is cut between rows, and the line after it says exactly which rows (and which cut cells) it shows: say so in your answer.',
      ].join(' '),
    inputSchema: Type.Object(
      {
        source: Type.String({ minLength: 1, description: 'Sandbox path of the table, e.g. "results/0007-query_sql.jsonl".' }),
        ...selectionSchema,
        locale: Type.Optional(Type.String({ minLength: 2, maxLength: 35, description: 'BCP 47 locale of numbers and dates, e.g. "de-DE". Default "en-US".' })),
        timeZone: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            description:
              'IANA time zone that timestamps with UTC offsets and epoch-number time columns are shown in, e.g. "Europe/Berlin"; the header names it. Default "UTC".',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    spill: false,
    annotations: { title: 'Draw a Markdown table', readOnlyHint: true, openWorldHint: false },
    async handler(args, context) {
      const selection = selectionFromArguments(args);
      const { source } = args;
      if (args.locale !== undefined) checkLocale(args.locale);
      if (args.timeZone !== undefined) checkTimeZone(args.timeZone);
      const task: MarkdownTask = {
        source: { kind: 'sandbox', root: services.sandboxRoot, principal: context.principal, conversationId: context.conversationId, path: source },
        selection,
        maxRows: context.config.drawTable.maxRows,
        maxBytes: inlineTableBytes(context.config),
        ...(args.locale === undefined ? {} : { locale: args.locale }),
        ...(args.timeZone === undefined ? {} : { timeZone: args.timeZone }),
      };
      const result = await services.pool().run<MarkdownResult>('markdown', task, { signal: context.signal });
      const zones = zoneNote({
        headers: result.columns.map((column) => column.header),
        zoned: result.zoned,
        where: 'This table',
        ...(args.timeZone === undefined ? {} : { timeZone: args.timeZone }),
      });
      const notes = [...selectionNotes({ source, selection, stats: result.stats }), ...(zones === undefined ? [] : [zones])];
      return { value: `${result.markdown}\n\n${drawTableFooter({ source, result, notes })}` };
    },
  });
}
