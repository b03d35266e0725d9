import { Type } from '@sinclair/typebox';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { plural } from '../../util/format.js';
import { selectionNotes } from '../../files/selection/selection-notes.js';
import { renameNote, reportColumns, sizeText } from './describe-output.js';
import type { FileToolServices } from './file-tool-services.js';
import { outputFilename } from './output-name.js';
import { enumOf } from '../../util/schema-builders.js';
import { selectionFromArguments, selectionSchema } from '../../files/selection/selection.js';
import type { TableResult, TableTask } from '../../files/pool/worker-task.js';

/** export_table: a CSV or XLSX file in outputs/ built by a worker from a spill path. */
export function exportTableTool(services: FileToolServices): ToolDefinition {
  return defineTool({
    name: 'export_table',
    description: [
      'Build a CSV or Excel (XLSX) file for the user from a table file in the sandbox, and attach it as a download.',
      'Pass the PATH of the data, e.g. the spill path a query returned ("results/0007-query_sql.jsonl"); never pass or retype the rows themselves: the file is read directly, so a 200-byte call exports a million rows exactly.',
      'Sources: JSONL spills, JSON arrays of objects, CSV files with a header.',
      'Optional: columns (names or {"name","header"}, in output order), sort ({"column","direction"} or a list; stable, numbers as numbers, empty values last), range ({"start","count"} after sorting, rows count from 0), filename (a plain name; a taken name gets a new one, which is reported).',
      'Filtering or aggregating is not done here: do that with query_sql first, then export its spill path.',
    ].join(' '),
    inputSchema: Type.Object(
      {
        source: Type.String({ minLength: 1, description: 'Sandbox path of the table, e.g. "results/0007-query_sql.jsonl".' }),
        format: enumOf(['csv', 'xlsx'], { description: 'csv (UTF-8, RFC 4180) or xlsx (Excel).' }),
        ...selectionSchema,
        filename: Type.Optional(
          Type.String({ minLength: 1, description: 'Plain file name for outputs/, e.g. "sales-2026.xlsx". Default: the source name with the new extension.' }),
        ),
      },
      { additionalProperties: false },
    ),
    spill: false,
    annotations: { title: 'Export a table file', readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    async handler(args, context) {
      const { format, source } = args;
      const selection = selectionFromArguments(args);
      const filename = outputFilename({ requested: args.filename, sourcePath: source, extension: format });
      await context.sandbox.ensure();
      const location = { root: services.sandboxRoot, conversationId: context.conversationId };
      const task: TableTask = {
        source: { kind: 'sandbox', ...location, path: source },
        selection,
        output: { kind: 'sandbox', ...location, filename, onExisting: 'rename' },
      };
      const result = await services.runToOutput<TableResult>(format, task, context);
      const attachment = describeAttachment(context.sandbox, result.path, result.bytes, result.rows);
      const notes = [
        ...renameNote(result.requestedName, attachment.path),
        ...selectionNotes({ source, selection, stats: result.stats }),
        ...result.notes,
      ];
      context.logger.info({ format, rows: result.rows, bytes: result.bytes, output: attachment.path }, 'table exported');
      return {
        value: {
          message: `Exported ${plural(result.rows, 'row')} × ${plural(result.columns.length, 'column')} from ${source} to ${attachment.path} (${sizeText(result.bytes)}). The user gets it as a download; do not repeat the rows in your answer.`,
          path: attachment.path,
          format,
          rows: result.rows,
          bytes: result.bytes,
          columns: reportColumns(result.columns),
          ...(result.sheets !== undefined && result.sheets > 1 ? { sheets: result.sheets } : {}),
          ...(notes.length > 0 ? { notes } : {}),
        },
        attachments: [attachment],
      };
    },
  });
}

