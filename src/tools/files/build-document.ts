import type { Static } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolContext, ToolDefinition } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { parseJsonSafely } from '../../util/safe-json.js';
import { enumOf } from '../../util/schema-builders.js';
import { formatCount, plural } from '../../util/format.js';
import { selectionNotes } from '../../files/selection/selection-notes.js';
import { renameNote, reportColumns, sizeText } from './describe-output.js';
import { documentSpecSchema, normalizeDocumentSpec, type DocumentBlock, type DocumentSpec } from '../../files/formats/document-spec.js';
import type { FileToolServices } from './file-tool-services.js';
import { outputFilename } from './output-name.js';
import { redactionNotes } from './redaction-note.js';
import type { DocumentResult, DocumentTask } from '../../files/pool/worker-task.js';
import { buildDocumentOutput } from './file-tool-output.js';
import { writesNewFile } from '../tool-annotations.js';

const buildDocumentInput = Type.Object(
  {
    format: enumOf(['docx', 'pptx']),
    spec: Type.Optional(documentSpecSchema({ description: 'The document, inline.' })),
    specPath: Type.Optional(Type.String({ minLength: 1, description: 'Sandbox path of a JSON file holding the spec, e.g. "args/report-spec.json".' })),
    filename: Type.Optional(Type.String({ minLength: 1, description: 'Plain file name for outputs/. Default: from the title.' })),
  },
  { additionalProperties: false },
);

/** build_document: a DOCX or PPTX whose tables are read from spill paths by a worker. */
export function buildDocumentTool(services: FileToolServices): ToolDefinition {
  return defineTool({
    name: 'build_document',
    longRunning: true,
    outputSchema: buildDocumentOutput,
    description: (config) =>
      [
        'Build a Word (docx) or PowerPoint (pptx) document for the user and attach it as a download.',
        `The spec is {"title", "subtitle"?, "locale"?, "timeZone"? (IANA, default "UTC": timestamps with offsets and epoch columns are shown in it), "orientation"?, "fontFamily"? (one family for headings, text and tables; default "${config.documents.fontFamily}"), "blocks": [...]} with blocks {"type":"heading","text","level"?}, {"type":"paragraph","text"} (inline **bold**, *italic*, \`code\`, [link](https://…)),` +
          ' {"type":"bullets"|"numbered","items":[...]} (an item may be {"text","items":[...]} to nest),' +
          ' {"type":"table","source":"results/0007-query_sql.jsonl","title"?,"columns"? (with "format"),"sort"?,"range"?},' +
          ' {"type":"chart","source","spec" (Vega-Lite without data, as build_chart),"title"?,"columns"?,"sort"?,"range"?} and {"type":"image","path":"outputs/x.png","title"?} (PNG, JPEG or SVG).',
        'Tables take the PATH of the rows (a spill), never the rows themselves. Give the spec inline (spec) or, when it is long, write it to a JSON file first (write_file to args/) and pass specPath.',
        'Tables get column widths from their content and formatted numbers and dates (locale, default en-US); DOCX turns landscape when a table is too wide and repeats the header row on every page; PPTX pages tables by measured row height, header on each slide.' +
          ' A table too wide for the page at 9 characters a column is set in a smaller font, split into parts of columns that repeat its key column, or (past 3 parts) laid out one record per block of "field | value" lines (the result says which); pass columns to keep only what a reader needs.',
        `A document holds at most ${formatCount(config.documents.maxTableRows)} table rows in all (documents.maxTableRows): for bigger` +
          ' tables put the rows a reader needs in the document (sort + range) and export the full set with export_table.',
      ].join(' '),
    inputSchema: buildDocumentInput,
    spill: false,
    annotations: writesNewFile('Build a document'),
    async handler(args, context) {
      const { format } = args;
      const written = await readSpec(args, context);
      const spec = await resolveFigures(written, services, context);
      const filename = outputFilename({ requested: args.filename, sourcePath: defaultStem(spec.title), extension: format });
      await context.sandbox.ensure();
      const location = { root: services.sandboxRoot, principal: context.principal, conversationId: context.conversationId };
      const task: DocumentTask = {
        spec,
        sources: { kind: 'sandbox', ...location },
        output: { kind: 'sandbox', ...location, filename, onExisting: 'rename' },
        maxTableRows: context.config.documents.maxTableRows,
        fontFamily: context.config.documents.fontFamily,
      };
      const result = await services.runToOutput<DocumentResult>(format, task, context);
      const attachment = describeAttachment(context.sandbox, result.path, result.bytes, result.rows);
      const tableBlocks = spec.blocks.filter((block) => block.type === 'table');
      const notes = [
        ...renameNote(result.requestedName, attachment.path),
        ...result.tables.flatMap((table, index) => {
          const block = tableBlocks[index];
          return block === undefined
            ? []
            : selectionNotes({ source: table.source, selection: block.selection, stats: table.stats }).map((note) => `Table ${index + 1}: ${note}`);
        }),
        ...result.notes,
        ...(await redactionNotes(context.sandbox, [
          ...new Set(written.blocks.flatMap((block) => (block.type === 'table' || block.type === 'chart' ? [block.source] : []))),
        ])),
      ];
      const slides = result.slides === undefined ? '' : `, ${plural(result.slides, 'slide')}`;
      context.logger.info({ format, tables: result.tables.length, rows: result.rows, bytes: result.bytes, output: attachment.path }, 'document built');
      return {
        value: {
          message: `Built ${attachment.path} (${sizeText(result.bytes)}${slides}) with ${plural(result.tables.length, 'table')} holding ${formatCount(result.rows)} rows in all. The user gets it as a download; do not repeat its content in your answer.`,
          path: attachment.path,
          format,
          bytes: result.bytes,
          ...(result.slides === undefined ? {} : { slides: result.slides }),
          ...(result.orientation === undefined ? {} : { orientation: result.orientation }),
          tables: result.tables.map((table) => ({ source: table.source, rows: table.rows, columns: reportColumns(table.columns) })),
          ...(notes.length > 0 ? { notes } : {}),
        },
        attachments: [attachment],
      };
    },
  });
}

/** Chart and image blocks become pictures here, on the main thread (charts render in their own worker), before the document task. */
async function resolveFigures(spec: DocumentSpec, services: FileToolServices, context: ToolContext): Promise<DocumentSpec> {
  const blocks: DocumentBlock[] = [];
  for (const [index, block] of spec.blocks.entries()) {
    if (block.type !== 'chart' && block.type !== 'image') {
      blocks.push(block);
      continue;
    }
    if (services.figures === undefined) {
      const field = `$.blocks[${index}]`;
      throw new SpillwayError('INVALID_ARGUMENTS', `${field} is a ${block.type} block, but this host has no chart and image support; leave it out.`, { field });
    }
    blocks.push(await services.figures(block, context));
  }
  return { ...spec, blocks };
}

async function readSpec(args: Static<typeof buildDocumentInput>, context: ToolContext): Promise<DocumentSpec> {
  if ((args.spec === undefined) === (args.specPath === undefined)) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      'Give the document either inline as spec or as specPath (a JSON file in the sandbox), not both and not neither.',
      {
        field: 'spec',
      },
    );
  }
  if (args.spec !== undefined) return normalizeDocumentSpec(args.spec, '');
  const { relative, data } = await context.sandbox.readFile(args.specPath, { maxBytes: context.config.args.maxBytes });
  let parsed: unknown;
  try {
    parsed = parseJsonSafely(data.toString('utf8'));
  } catch (error) {
    throw new SpillwayError('INVALID_JSON', `The spec file ${relative} is not valid JSON (${(error as Error).message}); fix it (write_file) and call again.`, {
      path: relative,
    });
  }
  return normalizeDocumentSpec(parsed, ` in ${relative}`);
}

/** A file name stem from the document title: letters, digits, spaces, ".", "_" and "-". */
function defaultStem(title: string): string {
  const stem = title
    .replace(/[^\p{L}\p{N} ._-]+/gu, '-')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.-]+|[\s.-]+$/g, '')
    .slice(0, 80);
  return `${stem || 'document'}.x`;
}
