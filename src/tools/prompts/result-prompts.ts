import { SpillwayError } from '../../errors.js';
import type { PromptContext, PromptDefinition } from '../../host/prompts.js';
import { completeSandboxPath, listEntries, metadataSuffix, readSidecar } from '../../sandbox/index.js';
import type { SpillRef } from '../../spill/spill-ref.js';

/**
 * Prompts a person picks in their client ("/export_result") so the model
 * hands a result on by its path instead of retyping it: the prompt names the
 * file, its rows and columns, and the tool call to make.
 */

const exportFormats = ['csv', 'xlsx', 'parquet'] as const;
const tableExtensions = ['.jsonl', '.json', '.csv'];
const maxColumnsNamed = 12;

const pathArgument = {
  name: 'path',
  description: 'The result to use, e.g. results/0007-query_sql.jsonl. Default: the newest table in results/.',
  complete: (typed: string, context: PromptContext) => completeSandboxPath(context.sandbox, typed),
};

export const exportResultPrompt: PromptDefinition = {
  name: 'export_result',
  title: 'Export a result as a file',
  description: 'Have the model export a result (default the newest) as CSV, XLSX or Parquet by its path, with a download link; no rows retyped.',
  arguments: [
    pathArgument,
    {
      name: 'format',
      description: 'csv, xlsx (default) or parquet.',
      complete: (typed) => exportFormats.filter((format) => format.startsWith(typed.toLowerCase())),
    },
  ],
  async render(args, context) {
    const format = (args.format ?? '') === '' ? 'xlsx' : (args.format ?? '').toLowerCase();
    if (!(exportFormats as readonly string[]).includes(format)) {
      throw new SpillwayError('INVALID_ARGUMENTS', `format must be one of ${exportFormats.join(', ')}; got ${JSON.stringify(args.format)}.`);
    }
    const result = await chooseResult(context, args.path);
    return [
      {
        role: 'user',
        content: {
          type: 'text',
          text: [
            `Export ${describe(result)} as ${format.toUpperCase()} with export_table, source "${result.path}", format "${format}".`,
            'Pass the path: do not retype or summarise rows into the arguments.',
            'Then give me the download link from the result.',
          ].join(' '),
        },
      },
    ];
  },
};

export const reportOnResultPrompt: PromptDefinition = {
  name: 'report_on_result',
  title: 'Write a report on a result',
  description: 'Have the model write a DOCX report on a result (default the newest): what the data shows, a chart and the key rows, all by path.',
  arguments: [pathArgument, { name: 'title', description: 'The report title. Default: one the model chooses from the data.' }],
  async render(args, context) {
    const result = await chooseResult(context, args.path);
    const title = (args.title ?? '') === '' ? 'a short title that says what the data shows' : `the title "${args.title}"`;
    return [
      {
        role: 'user',
        content: {
          type: 'text',
          text: [
            `Write a short report on ${describe(result)} as a DOCX with build_document, with ${title}.`,
            `Look at the column profile first (inspect_file on "${result.path}"); compute any figure you cite with query_files rather than by reading rows.`,
            `Use blocks: a paragraph or two on what the data shows, one chart block with source "${result.path}" if a chart helps, and a table block with source "${result.path}" (choose columns, sort and range for the rows that matter).`,
            'Never retype rows into the spec: tables and charts take the path. Then give me the download link.',
          ].join(' '),
        },
      },
    ];
  },
};

export const resultPrompts: readonly PromptDefinition[] = [exportResultPrompt, reportOnResultPrompt];

interface ChosenResult {
  path: string;
  rows?: number;
  columns?: string[];
}

/** The named result (checked like any client path), or the newest table file in results/. */
async function chooseResult(context: PromptContext, requested: string | undefined): Promise<ChosenResult> {
  const { sandbox } = context;
  let path: string;
  if (requested !== undefined && requested !== '') {
    path = (await sandbox.resolveExisting(requested)).relative;
  } else {
    await sandbox.ensure();
    const tables = (await listEntries(sandbox, 'results')).filter(
      (entry) => !entry.folder && tableExtensions.some((extension) => entry.relative.endsWith(extension)),
    );
    const newest = tables.at(-1);
    if (newest === undefined) {
      throw new SpillwayError('PATH_NOT_FOUND', 'This conversation has no table in results/ yet: run a query first, or name the file with path.');
    }
    path = newest.relative;
  }
  const meta = await readSidecar(`${sandbox.dir}/${path}${metadataSuffix}`, 1024 * 1024)
    .then((text) => (text === undefined ? undefined : (JSON.parse(text) as Partial<SpillRef>)))
    .catch(() => undefined);
  return { path, ...(meta?.rows === undefined ? {} : { rows: meta.rows }), ...(meta?.columns === undefined ? {} : { columns: meta.columns }) };
}

function describe(result: ChosenResult): string {
  const facts: string[] = [];
  if (result.rows !== undefined) facts.push(`${result.rows} rows`);
  if (result.columns !== undefined) {
    const named = result.columns.slice(0, maxColumnsNamed).join(', ');
    facts.push(`columns ${named}${result.columns.length > maxColumnsNamed ? `, and ${result.columns.length - maxColumnsNamed} more` : ''}`);
  }
  return `the result ${result.path}${facts.length === 0 ? '' : ` (${facts.join('; ')})`}`;
}
