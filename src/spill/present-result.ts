import { setImmediate as nextTurn } from 'node:timers/promises';
import { SpillwayError } from '../errors.js';
import { toDiskError, type ConversationSandbox } from '../sandbox/index.js';
import { ResultScreener, screeningNotes, type ScreeningPolicy, type ScreeningReport } from '../screening/index.js';
import { formatBytes, formatCount, plural } from '../util/format.js';
import { Pacer } from '../util/pacer.js';
import { describeColumns, describeKind } from './describe-contents.js';
import { elementSlices } from './element-slices.js';
import { jsonPrefix } from './json-prefix.js';
import { shortenError } from './shorten-error.js';
import type { SpillRef } from './spill-ref.js';
import { TableProfiler } from './profile.js';
import { describeProfile } from './profile-text.js';
import { detectTable, type TableShape } from './table.js';
import type { Unwrapped } from './unwrap.js';
import { wholeLinePrefix, wholeRecordPrefix } from './whole-record-prefix.js';
import { writeSpill, type SpillContent, type SpillNumbers } from './write-spill.js';

/** The spill rules in force for one call (config plus per-tool overrides). */
export interface SpillSettings {
  /** false keeps the result inline and never writes a file. */
  spill: boolean;
  thresholdChars: number;
  inlineMaxTokens: number;
  bytesPerToken: number;
  errorHeadChars: number;
  errorTailChars: number;
  retentionDays: number;
  /** What screening does to this tool's results (secrets, injected instructions); absent: not screened. */
  screening?: ScreeningPolicy;
}

export interface PresentInput {
  sandbox: ConversationSandbox;
  tool: string;
  callId: string;
  result: Unwrapped;
  isError: boolean;
  settings: SpillSettings;
  now: Date;
  /** Spill numbers shared with other processes (a fleet); without it, this process numbers its own. */
  numbers?: SpillNumbers;
  /** Called when a spill could not be written; the call still succeeds. */
  onSpillFailure?: (error: unknown) => void;
}

/** What the model gets for one call. */
export interface ModelView {
  /** The text the model reads: the result (or its whole-record prefix) and the reference to the file. */
  text: string;
  /** The main spilled file, when one was written. */
  spill?: SpillRef;
  /** Binary blocks written as their own files. */
  files: SpillRef[];
  /** True when `text` shows only a prefix of the result. */
  truncated: boolean;
  /** The result (JSON value, or the text) when the model sees it whole. */
  value?: unknown;
  /** A spill that failed (disk full, permissions): the reason, for logs. */
  spillError?: string;
  /** The host's own sentences in `text` (how much is shown, where the file is), for structured results. */
  notes: string[];
  /** What screening found (secrets redacted or flagged, injected instructions, invisible Unicode); absent when nothing. */
  screening?: ScreeningReport;
}

/** A result rendered once: its full inline text (built lazily), its size, and how to cut it. */
interface Rendered {
  /** What the file holds (the original values when screening keeps them). */
  content: SpillContent;
  /** The result as the model reads it (screened). */
  value: unknown;
  chars: number;
  /** Whether the full text fits in `budgetBytes` of UTF-8 (measured only when the length alone cannot tell). */
  fits(budgetBytes: number): boolean;
  full(): string;
  /** A whole-record prefix (up to the line break before the notes) and the host's notes: how much it shows, what the rest holds. */
  cut(budgetBytes: number, spilled: boolean): { text: string; notes: string[] };
}

/**
 * Applies the spill rules to one result: decides whether to write it, writes it
 * (a failure only warns), and builds what the model reads: the whole result
 * under the inline cap, or a whole-record prefix with a sentence saying how
 * much it shows; then the file's path, format, size, rows and columns.
 */
export async function presentResult(input: PresentInput): Promise<ModelView> {
  const { result, settings, isError } = input;
  const newScreener = () => (settings.screening === undefined ? undefined : new ResultScreener(settings.screening));
  let screener = newScreener();
  let rendered: Rendered;
  try {
    rendered =
      isError || result.kind === 'text'
        ? renderText(result.kind === 'text' ? result.text : JSON.stringify(result.value, null, 2), screener)
        : await renderJson(result.value, result.source, screener);
  } catch (error) {
    // A value nested deeper than the stack goes (an upstream's 100,000 brackets) cannot be walked
    // as JSON: the text it came as is kept, screened and spilled as text; without one it is refused.
    if (!(error instanceof RangeError) || result.kind !== 'json') throw error;
    if (result.source === undefined) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        'The result is nested too deeply to be handled (its JSON goes deeper than the host can walk). Return it flatter, or as text.',
        {
          limit: 'nesting depth',
        },
      );
    }
    screener = newScreener();
    rendered = renderText(result.source, screener);
  }
  const screening = screener?.report(screener.keepsOriginal);

  let spill: SpillRef | undefined;
  let spillError: string | undefined;
  let spillFault: string | undefined;
  const files: SpillRef[] = [];
  const target = {
    sandbox: input.sandbox,
    tool: input.tool,
    callId: input.callId,
    now: input.now,
    retentionDays: settings.retentionDays,
    ...(input.numbers === undefined ? {} : { numbers: input.numbers }),
  };
  const attempt = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      const fault = toDiskError(error, { base: input.sandbox.dir });
      spillFault = fault?.code;
      spillError = fault?.message ?? (error instanceof Error ? error.message : String(error));
      input.onSpillFailure?.(error);
      return undefined;
    }
  };

  if (settings.spill && rendered.chars > settings.thresholdChars) {
    spill = await attempt(() =>
      writeSpill({ ...target, folder: isError ? 'errors' : 'results', ...(screening === undefined ? {} : { screening }) }, rendered.content),
    );
  }
  if (settings.spill) {
    let index = 1;
    for (const binary of result.binaries) {
      index += 1;
      const suffix = index === 2 && spill === undefined ? '' : `-${index - 1}`;
      const ref = await attempt(() => writeSpill({ ...target, folder: 'results', suffix }, { format: 'binary', data: binary.data, mimeType: binary.mimeType }));
      if (ref !== undefined) files.push(ref);
    }
  }

  const budgetBytes = Math.floor(settings.inlineMaxTokens * settings.bytesPerToken);
  let body: string;
  let truncated = false;
  const notes: string[] = [];
  if (isError) {
    body = shortenError(rendered.full(), settings.errorHeadChars, settings.errorTailChars, spill?.path);
    truncated = body.length < rendered.chars;
  } else if (rendered.fits(budgetBytes)) {
    body = rendered.full();
  } else {
    const cut = rendered.cut(budgetBytes, spill !== undefined);
    body = `${cut.text}${cut.notes.join('\n')}`;
    notes.push(...cut.notes.map((note) => note.replace(/^\[spillway\] /, '')));
    truncated = true;
  }

  if (body.length === 0 && result.binaries.length === 0) {
    // An empty string is easy to misread as "the call did nothing"; say it.
    body = `[spillway] ${isError ? 'The tool failed without a message.' : 'The tool returned an empty result.'}`;
  }
  const warnings = screeningNotes(screening).map((note) => `[spillway] ${note}`);
  notes.push(...warnings.map((note) => note.replace(/^\[spillway\] /, '')));
  const references = [spill, ...files].filter((ref): ref is SpillRef => ref !== undefined).map(describeReference);
  if (spillError !== undefined && settings.spill && rendered.chars > settings.thresholdChars) {
    const why = spillFault === undefined ? '' : ` (${spillFault}: ${spillFaultText[spillFault] ?? 'a file-system failure'})`;
    references.push(`[spillway] The full result could not be saved to a file${why}, so no path is available; work from the text above.`);
  }
  notes.push(...references.map((reference) => reference.replace(/^\[spillway\] /, '')));
  const text = [body, warnings.join('\n'), ...references].filter((part) => part.length > 0).join('\n\n');
  const view: ModelView = { text, files, truncated, notes };
  if (spill !== undefined) view.spill = spill;
  if (spillError !== undefined) view.spillError = spillError;
  if (screening !== undefined) view.screening = screening;
  if (!truncated && !isError) view.value = rendered.value;
  return view;
}

/** Why a spill failed, in the sentence the model reads (the code says it for programs). */
const spillFaultText: Record<string, string> = {
  DISK_FULL: 'the sandbox disk is full',
  SANDBOX_READ_ONLY: 'the sandbox is not writable',
  DISK_IO: 'the file system failed',
};

function utf8Length(text: string): number {
  return Buffer.byteLength(text);
}

/**
 * UTF-8 never takes fewer bytes than UTF-16 code units, so a text longer than
 * the budget in characters is over it in bytes without encoding 100 MB to know.
 */
function fitsUtf8(chars: number, budgetBytes: number, measure: () => number): boolean {
  return chars <= budgetBytes && measure() <= budgetBytes;
}

function renderText(original: string, screener?: ResultScreener): Rendered {
  const screened = screener === undefined ? { model: original, file: original } : screener.text(original);
  const text = screened.model;
  return {
    content: { format: 'text', text: screened.file },
    value: text,
    chars: text.length,
    fits: (budgetBytes) => fitsUtf8(text.length, budgetBytes, () => utf8Length(text)),
    full: () => text,
    cut(budgetBytes, spilled) {
      const totalLines = countLines(text);
      const prefix = wholeLinePrefix(text, budgetBytes, utf8Length);
      const rest = spilled ? `the file holds all ${plural(totalLines, 'line')}` : 'the rest was not saved';
      const shown = prefix.cutInsideLine
        ? `Showing the first ${formatCount(prefix.text.length)} of ${formatCount(text.length)} characters (the first line alone is over the inline cap); ${rest}.`
        : `Showing lines 1–${formatCount(prefix.lines)} of ${formatCount(totalLines)}; ${rest}.`;
      return { text: `${prefix.text}${prefix.text.endsWith('\n') ? '' : '\n'}`, notes: [`[spillway] ${shown}`] };
    },
  };
}

/**
 * Rows prepared (serialized, screened, profiled) between two turns given to other calls:
 * a 64 MiB result of 100,000 rows that all need screening took ~5 s of one event loop; a
 * slice of this many such rows takes ~70 ms. (At 256 a slice, the turns cost a 10 MB spill
 * a measurable share of its time; at 2,048 they are within the bench's noise.)
 */
const rowsPerTurn = 2048;
/** Rows the screening prefilter reads between two turns (it is cheaper a row than the walk). */
const prefilterRowsPerTurn = 8192;
/** A row counts as one more unit of work for each this many characters of its JSON text (a very wide row is many rows' work). */
const charsPerUnit = 512;
/** Characters the prefilter reads between two turns, whatever the number of rows. */
const prefilterCharsPerTurn = prefilterRowsPerTurn * charsPerUnit;

/** How much work a row of `chars` characters is, in rows of ordinary width. */
const rowUnits = (chars: number) => 1 + Math.floor(chars / charsPerUnit);

/** The rows (indices) screening must walk, found in slices (by rows and by characters) with a turn for other calls between them. */
async function rowsToWalk(screener: ResultScreener, lines: readonly string[]): Promise<Set<number>> {
  const flagged = new Set<number>();
  for (let start = 0; start < lines.length;) {
    let end = start;
    for (let chars = 0; end < lines.length && end - start < prefilterRowsPerTurn && (end === start || chars < prefilterCharsPerTurn); end += 1) {
      chars += lines[end]?.length ?? 0;
    }
    if (start > 0) await nextTurn();
    const slice = start === 0 && end === lines.length ? lines : lines.slice(start, end);
    for (const index of screener.rowsToScreen(slice)) flagged.add(start + index);
    start = end;
  }
  return flagged;
}

async function renderJson(value: unknown, source?: string, screener?: ResultScreener): Promise<Rendered> {
  const table = detectTable(value);
  if (table !== undefined) {
    // The profile is gathered, and the rows screened, in the same pass that prepares each row for the file.
    const profiler = new TableProfiler();
    const pacer = new Pacer(rowsPerTurn);
    // Rows that arrived as JSON text keep their own text (one line each); serializing
    // every row again was the largest cost of a big spill.
    const slices = source === undefined ? undefined : elementSlices(source, table.envelope?.rowsKey);
    const reuse = slices !== undefined && slices.length === table.rows.length ? slices : undefined;
    const lines: string[] = [];
    for (const [index, row] of table.rows.entries()) {
      const own = reuse?.[index];
      if (own !== undefined) {
        lines.push(own);
        continue;
      }
      const line = JSON.stringify(row);
      lines.push(line);
      const pause = pacer.step(rowUnits(line.length));
      if (pause !== undefined) await pause;
    }
    const screenedRows = new Map<number, unknown>();
    // The file's lines: redacted (unless screening.keep) but with their invisible characters; the model reads them escaped.
    const toScreen = screener === undefined ? undefined : await rowsToWalk(screener, lines);
    const fileLines = toScreen !== undefined && toScreen.size > 0 ? lines.slice() : undefined;
    for (const [index, row] of table.rows.entries()) {
      const pause = pacer.step(rowUnits(lines[index]?.length ?? 0));
      if (pause !== undefined) await pause;
      const flagged = toScreen?.has(index) === true;
      const screened = flagged ? screener?.row(row, index + 1) : undefined;
      profiler.add((screened?.model as Record<string, unknown> | undefined) ?? row);
      if (screened === undefined) {
        // The parsed row was clean, but its source text may say more than it: a key given twice
        // keeps only its last value in the parse. Such a row is written from the parse.
        if (flagged && reuse !== undefined && screener?.sourceHoldsMore(lines[index] ?? '') === true) {
          lines[index] = JSON.stringify(row);
          if (fileLines !== undefined) fileLines[index] = lines[index];
        }
        continue;
      }
      if (fileLines !== undefined && screened.file !== row) fileLines[index] = JSON.stringify(screened.file);
      screenedRows.set(index, screened.model);
      lines[index] = JSON.stringify(screened.model);
    }
    const fields = table.envelope === undefined || screener === undefined ? undefined : screener.json(table.envelope.fields);
    const shownFields = fields?.model as Record<string, unknown> | undefined;
    const envelope = table.envelope === undefined ? undefined : { ...table.envelope, fields: shownFields ?? table.envelope.fields };
    let open = '[';
    let close = ']';
    if (envelope !== undefined) {
      const fields = JSON.stringify(envelope.fields);
      open = `${fields.length > 2 ? `${fields.slice(0, -1)},` : '{'}${JSON.stringify(envelope.rowsKey)}:[`;
      close = ']}';
    }
    let chars = open.length + close.length + Math.max(0, lines.length - 1);
    for (const line of lines) chars += line.length;
    const measureBytes = () => {
      let bytes = utf8Length(open) + utf8Length(close) + Math.max(0, lines.length - 1);
      for (const line of lines) bytes += utf8Length(line);
      return bytes;
    };
    const profile = profiler.profile();
    const content: SpillContent = { format: 'jsonl', lines: fileLines ?? lines, columns: profiler.columns, columnTypes: profiler.columnTypes, profile };
    if (table.envelope !== undefined) content.envelope = { ...table.envelope, fields: (fields?.file ?? table.envelope.fields) as Record<string, unknown> };
    return {
      content,
      value: screenedRows.size === 0 && envelope?.fields === table.envelope?.fields ? value : screenedTable(table, envelope, screenedRows),
      chars,
      fits: (budgetBytes) => fitsUtf8(chars, budgetBytes, measureBytes),
      full: () => open + lines.join(',') + close,
      cut(budgetBytes, spilled) {
        const sentenceBudget = 200;
        // What the rows the model does not see hold, in at most a tenth of the budget.
        const summary = describeProfile(profile, Math.min(3000, Math.floor(budgetBytes / 10)));
        const prefix = wholeRecordPrefix(lines, Math.max(0, budgetBytes - sentenceBudget - utf8Length(summary)), { open, close, measure: utf8Length });
        const total = lines.length;
        const rest = spilled ? `the file holds all ${formatCount(total)}` : 'the rest was not saved to a file; narrow the query';
        return { text: `${prefix.text}\n`, notes: [`[spillway] Showing ${formatCount(prefix.count)} of ${plural(total, 'row')}; ${rest}.`, summary] };
      },
    };
  }
  const screened = screener === undefined ? { model: value, file: value } : screener.json(value);
  const shown = screened.model;
  const text = JSON.stringify(shown) ?? 'null';
  return {
    content: { format: 'json', text: JSON.stringify(screened.file, null, 2) ?? 'null' },
    value: shown,
    chars: text.length,
    fits: (budgetBytes) => fitsUtf8(text.length, budgetBytes, () => utf8Length(text)),
    full: () => text,
    cut(budgetBytes, spilled) {
      const prefix = jsonPrefix(shown, Math.max(0, budgetBytes - 200), utf8Length);
      const rest = spilled ? 'the file holds the whole result' : 'the rest was not saved to a file';
      return {
        text: `${prefix.text}\n`,
        notes: [`[spillway] Showing ${formatCount(prefix.shown)} of ${formatCount(prefix.total)} ${prefix.unit} of ${prefix.at}; ${rest}.`],
      };
    },
  };
}

/** A table result with its screened rows (and envelope members) in place, as the model reads it. */
function screenedTable(table: TableShape, envelope: TableShape['envelope'], rows: Map<number, unknown>): unknown {
  const screened = table.rows.map((row, index) => (rows.has(index) ? rows.get(index) : row));
  if (envelope === undefined) return screened;
  const value: Record<string, unknown> = { ...envelope.fields };
  Object.defineProperty(value, envelope.rowsKey, { value: screened, enumerable: true, writable: true, configurable: true });
  return value;
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index < text.length - 1) count += 1;
  }
  return count;
}

/** The sentence that tells the model where the file is and what it holds. */
export function describeReference(ref: SpillRef): string {
  const kind = describeKind(ref);
  const columns = describeColumns(ref.columns);
  const use =
    ref.format === 'jsonl'
      ? ` Pass this path, never the rows: query_files runs SQL over it (filter, group, join: FROM '${ref.path}'); build_chart/export_table/draw_table/build_document take it as source; call_with_args_file sends files to other tools; inspect_file profiles it; read_file/search_file reread it.`
      : ref.path.startsWith('errors/')
        ? ' Read it with read_file or search_file for the full error.'
        : ' Reread it with read_file/search_file; pass the path (not the content) to tools that take one.';
  return `[spillway] Saved to ${ref.path} (${kind}, ${formatBytes(ref.bytes)}, expires ${ref.expiresAt}).${columns}${use}`;
}
