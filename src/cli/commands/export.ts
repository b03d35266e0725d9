import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { SpillwayError } from '../../errors.js';
import { createLogger } from '../../log/logger.js';
import { selectionNotes } from '../../files/selection/selection-notes.js';
import { checkTimeZone } from '../../files/columns/iso-date.js';
import { FilePool } from '../../files/pool/file-pool.js';
import type { ProgressMessage } from '../../files/pool/worker-task.js';
import { normalizeSelection } from '../../files/selection/selection.js';
import type { DocumentResult, DocumentTask, TableResult, TableTask } from '../../files/pool/worker-task.js';
import { formatBytes, formatCount, plural } from '../../util/format.js';
import { commandLogLevel } from '../command-log-level.js';
import type { CliIo } from '../output.js';

export const exportUsage = `spillway export SOURCE [--format csv|xlsx|docx|pptx] [-o FILE] [options]

Builds a file from a table file (JSONL, JSON array of objects, or CSV with a
header) with the same worker code the export_table tool uses.

  --format F         csv, xlsx, docx or pptx (default: from -o's extension)
  -o, --output FILE  where to write (default: SOURCE's name with the new extension, here)
  --columns LIST     columns in output order; NAME:Header renames: id,amount:Amount (EUR)
  --sort LIST        sort keys, first key first: amount:desc,name (default asc)
  --range START:COUNT  rows after sorting, counted from 0: 0:100; START: runs to the end
  --time-zone ZONE   IANA zone that timestamps with UTC offsets and epoch time columns
                     are shown in, named in their headers (default UTC): Europe/Berlin
  --force            replace FILE when it exists (otherwise the export is refused)
  --json             print the result as JSON (for scripts)
  --config FILE      configuration (worker pool size, documents.maxTableRows, documents.fontFamily)

A progress bar is shown on stderr when stdout is a terminal. Exit codes: 0
done, 1 refused (one line on stderr says why), 2 usage error.

Examples:
  spillway export results.jsonl -o report.xlsx
  spillway export rows.csv --format docx --columns id,amount:Amount --sort amount:desc --range 0:100`;

const formats = ['csv', 'xlsx', 'docx', 'pptx'] as const;
type Format = (typeof formats)[number];

export async function exportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      columns: { type: 'string' },
      sort: { type: 'string' },
      range: { type: 'string' },
      'time-zone': { type: 'string' },
      force: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      config: { type: 'string' },
    },
    strict: true,
  });
  if (positionals.length !== 1) {
    io.err(`spillway export: give exactly one SOURCE file (got ${positionals.length}); run \`spillway export --help\` for its options.`);
    return 2;
  }
  const source = path.resolve(positionals[0] as string);
  const format = chooseFormat(values.format, values.output);
  const output = path.resolve(values.output ?? `${path.basename(source).replace(/\.[^.]*$/, '')}.${format}`);
  if (output === source) throw new SpillwayError('INVALID_ARGUMENTS', `The output ${output} is the source itself; choose another -o.`);
  if (!values.force && existsSync(output)) {
    throw new SpillwayError('PATH_EXISTS', `${output} already exists; pass --force to replace it, or choose another -o.`, { path: output });
  }
  const selection = normalizeSelection({ columns: parseColumns(values.columns), sort: parseSort(values.sort), range: parseRange(values.range) });

  const timeZone = values['time-zone'] === undefined ? {} : { timeZone: checkTimeZone(values['time-zone'], '--time-zone') };

  const config = loadConfig({ file: values.config });
  const pool = new FilePool({ ...config.workers, logger: createLogger(commandLogLevel(config.log.level)) });
  const bar = io.interactive ? progressBar() : undefined;
  try {
    const target = { kind: 'local' as const, path: output, overwrite: values.force };
    const run = { ...(bar === undefined ? {} : { onProgress: bar.update }) };
    if (format === 'csv' || format === 'xlsx') {
      const task: TableTask = { source: { kind: 'local', path: source }, selection, output: target, ...timeZone, fontFamily: config.documents.fontFamily };
      const result = await pool.run<TableResult>(format, task, run);
      bar?.done();
      const notes = [...selectionNotes({ source, selection, stats: result.stats }), ...result.notes];
      if (values.json) io.out(JSON.stringify({ path: result.path, format, rows: result.rows, bytes: result.bytes, columns: result.columns, notes }, null, 2));
      else
        io.out(
          [`Wrote ${result.path}: ${plural(result.rows, 'row')} × ${plural(result.columns.length, 'column')}, ${formatBytes(result.bytes)}.`, ...notes].join(
            '\n',
          ),
        );
    } else {
      const spec = { title: path.basename(source), ...timeZone, blocks: [{ type: 'table' as const, source, selection }] };
      const task: DocumentTask = {
        spec,
        sources: { kind: 'local' },
        output: target,
        maxTableRows: config.documents.maxTableRows,
        fontFamily: config.documents.fontFamily,
      };
      const result = await pool.run<DocumentResult>(format, task, run);
      bar?.done();
      const table = result.tables[0];
      const notes = [...(table === undefined ? [] : selectionNotes({ source, selection, stats: table.stats })), ...result.notes];
      if (values.json) io.out(JSON.stringify({ path: result.path, format, rows: result.rows, bytes: result.bytes, slides: result.slides, notes }, null, 2));
      else
        io.out(
          [
            `Wrote ${result.path}: ${plural(result.rows, 'table row')}${result.slides === undefined ? '' : ` on ${plural(result.slides, 'slide')}`}, ${formatBytes(result.bytes)}.`,
            ...notes,
          ].join('\n'),
        );
    }
    return 0;
  } finally {
    bar?.done();
    await pool.close();
  }
}

function chooseFormat(format: string | undefined, output: string | undefined): Format {
  const candidate = format ?? (output === undefined ? undefined : path.extname(output).slice(1).toLowerCase());
  if (candidate === undefined)
    throw new SpillwayError('INVALID_ARGUMENTS', 'Give --format (csv, xlsx, docx or pptx) or an -o file name with one of those extensions.');
  if (!(formats as readonly string[]).includes(candidate)) {
    throw new SpillwayError('INVALID_ARGUMENTS', `--format must be one of ${formats.join(', ')} (got ${JSON.stringify(candidate)}).`, { format: candidate });
  }
  return candidate as Format;
}

/** "id,amount:Amount (EUR)" → ["id", {name: "amount", header: "Amount (EUR)"}]. */
export function parseColumns(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  return text.split(',').map((part) => {
    const colon = part.indexOf(':');
    return colon === -1 ? part.trim() : { name: part.slice(0, colon).trim(), header: part.slice(colon + 1) };
  });
}

/** "amount:desc,name" → [{column: "amount", direction: "desc"}, {column: "name", direction: "asc"}]. */
export function parseSort(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  return text.split(',').map((part) => {
    const [column = '', direction = 'asc'] = part.split(':').map((piece) => piece.trim());
    return { column, direction: direction.toLowerCase() };
  });
}

/** "0:100" → {start: 0, count: 100}; "100:" or "100" → {start: 100}. */
export function parseRange(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const match = /^\s*(-?[^:\s]*)\s*(?::\s*([^\s]*))?\s*$/.exec(text);
  const number = (piece: string | undefined) => (piece === undefined || piece === '' ? undefined : Number(piece));
  const range: Record<string, unknown> = { start: number(match?.[1]) ?? Number.NaN };
  const count = number(match?.[2]);
  if (count !== undefined) range.count = count;
  return range;
}

/** A one-line bar on stderr, redrawn at most every 100 ms by the worker's progress messages. */
function progressBar(): { update: (progress: ProgressMessage) => void; done: () => void } {
  let shown = false;
  let finished = false;
  return {
    update(progress) {
      if (finished) return;
      const fraction = progress.bytes > 0 ? Math.min(1, progress.bytesRead / progress.bytes) : 1;
      const width = 30;
      const filled = Math.round(fraction * width);
      const label = progress.phase === 'reading' ? 'reading' : progress.phase === 'sorting' ? 'sorting' : 'writing';
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}% ${label} ${formatCount(progress.rows)} rows `,
      );
      shown = true;
    },
    done() {
      if (shown && !finished) process.stderr.write('\r\x1b[2K');
      finished = true;
    },
  };
}

/** The verb as `spillway` runs it. */
export const command = { run: exportCommand, usage: exportUsage };
