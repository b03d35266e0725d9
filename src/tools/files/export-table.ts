import { Type } from '../../util/type-builder.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { plural } from '../../util/format.js';
import { selectionNotes } from '../../files/selection/selection-notes.js';
import { redactionNotes } from './redaction-note.js';
import { renameNote, reportColumns, sizeText } from './describe-output.js';
import type { FileToolServices } from './file-tool-services.js';
import { outputFilename } from './output-name.js';
import { enumOf } from '../../util/schema-builders.js';
import { selectionFromArguments, selectionSchema } from '../../files/selection/selection.js';
import type { SheetPart, TableResult, TableTask } from '../../files/pool/worker-task.js';
import { checkTableOptions, maxSources } from './table-options.js';
import { exportTableOutput } from './file-tool-output.js';
import { writesNewFile } from '../tool-annotations.js';

/** The formats export_table builds itself, as its first sentence names them. */
export const localFormats = 'CSV or Excel (XLSX)';

/** export_table's first sentence, naming its formats (a wrapper that adds a format names it here too). */
export function exportTableLead(formats: string): string {
  return `Build a ${formats} file for the user from a table file in the sandbox, and attach it as a download.`;
}

/** export_table: a CSV or XLSX file in outputs/ built by a worker from a spill path. */
export function exportTableTool(services: FileToolServices): ToolDefinition {
  return defineTool({
    name: 'export_table',
    longRunning: true,
    outputSchema: exportTableOutput,
    description: [
      exportTableLead(localFormats),
      'Pass the PATH of the data, e.g. the spill path a query returned ("results/0007-query_sql.jsonl"); never pass or retype the rows themselves: the file is read directly, so a 200-byte call exports a million rows exactly.',
      'Sources: JSONL spills, JSON arrays of objects, CSV files with a header.',
      'Optional: columns (names or {"name","header","format"}, in output order; format "number", "integer", "percent", "currency" (with "currency": "EUR"), "date", "datetime" or "text", inferred from the values when absent), sort ({"column","direction"} or a list; stable, numbers as numbers, empty values last), range ({"start","count"} after sorting, rows count from 0), filename (a plain name; a taken name gets a new one, which is reported), locale (default "en-US"), timeZone (IANA name; timestamps with offsets and epoch time columns are converted to it, default "UTC").',
      'XLSX: real date cells, number formats, a filtered frozen header; sheet names the sheet; a list of sources gives one sheet each in one workbook.',
      'CSV: a byte-order mark for spreadsheets (bom: false for programs), delimiter "," ";" or "\\t", and a formula guard (an apostrophe before text a spreadsheet would run, such as "=HYPERLINK(...)"); pass formulaGuard: false when a program, not a person, reads the file.',
      'Filtering or aggregating is not done here: do that with query_sql first, then export its spill path.',
    ].join(' '),
    inputSchema: Type.Object(
      {
        source: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: maxSources })], {
          description: 'Sandbox path of the table, e.g. "results/0007-query_sql.jsonl"; for XLSX a list of paths gives one sheet per source.',
        }),
        format: enumOf(['csv', 'xlsx'], { description: 'csv (UTF-8, RFC 4180) or xlsx (Excel).' }),
        ...selectionSchema,
        filename: Type.Optional(
          Type.String({ minLength: 1, description: 'Plain file name for outputs/, e.g. "sales-2026.xlsx". Default: the source name with the new extension.' }),
        ),
        sheet: Type.Optional(
          Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: maxSources })], {
            description: 'XLSX sheet name (default "Data"), or one name per source when source is a list (default: the tool that made each source).',
          }),
        ),
        locale: Type.Optional(
          Type.String({
            minLength: 2,
            maxLength: 35,
            description: 'BCP 47 locale for separators, date order and currency symbols, e.g. "de-DE". Default "en-US".',
          }),
        ),
        timeZone: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            description:
              'IANA time zone that timestamps with UTC offsets and epoch-number time columns are converted to, e.g. "Europe/Berlin"; the header names it. Default "UTC".',
          }),
        ),
        bom: Type.Optional(
          Type.Boolean({ description: 'CSV: start with a UTF-8 byte-order mark so spreadsheets read accents right (default true; false for programs).' }),
        ),
        delimiter: Type.Optional(enumOf([',', ';', '\t'], { description: 'CSV field separator (default ",").' })),
        formulaGuard: Type.Optional(
          Type.Boolean({
            description: 'CSV: put an apostrophe before text a spreadsheet would run as a formula (default true; false when a program reads the file).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    spill: false,
    annotations: writesNewFile('Export a table file'),
    async handler(args, context) {
      const { format } = args;
      const sources = typeof args.source === 'string' ? [args.source] : args.source;
      const source = sources.join(', ');
      const sheets = args.sheet === undefined ? [] : typeof args.sheet === 'string' ? [args.sheet] : args.sheet;
      checkTableOptions({ format, sources, sheets, args });
      const selection = selectionFromArguments(args);
      const filename = outputFilename({ requested: args.filename, sourcePath: sources[0] as string, extension: format });
      await context.sandbox.ensure();
      const location = { root: services.sandboxRoot, principal: context.principal, conversationId: context.conversationId };
      const part = (path: string, index: number): SheetPart => ({
        source: { kind: 'sandbox', ...location, path },
        selection,
        ...(sheets[index] === undefined ? {} : { sheet: sheets[index] }),
      });
      const [first, ...more] = sources.map(part);
      const task: TableTask = {
        ...(first as SheetPart),
        output: { kind: 'sandbox', ...location, filename, onExisting: 'rename' },
        ...(more.length > 0 ? { moreSheets: more } : {}),
        ...(args.locale === undefined ? {} : { locale: args.locale }),
        ...(args.timeZone === undefined ? {} : { timeZone: args.timeZone }),
        ...(args.bom === undefined ? {} : { bom: args.bom }),
        ...(args.delimiter === undefined ? {} : { delimiter: args.delimiter }),
        ...(args.formulaGuard === undefined ? {} : { formulaGuard: args.formulaGuard }),
        fontFamily: context.config.documents.fontFamily,
      };
      const result = await services.runToOutput<TableResult>(format, task, context);
      const attachment = describeAttachment(context.sandbox, result.path, result.bytes, result.rows);
      const notes = [
        ...renameNote(result.requestedName, attachment.path),
        ...selectionNotes({ source, selection, stats: result.stats }),
        ...result.notes,
        ...(await redactionNotes(context.sandbox, sources)),
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
          ...(result.parts !== undefined ? { sheetNames: result.parts.flatMap((part) => part.sheets) } : {}),
          ...(result.parts?.[0] !== undefined
            ? { formats: Object.fromEntries(result.parts[0].columns.map((column, index) => [column.header, result.parts?.[0]?.formats[index]?.type])) }
            : {}),
          ...(notes.length > 0 ? { notes } : {}),
        },
        attachments: [attachment],
      };
    },
  });
}
