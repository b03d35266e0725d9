import { linearPattern, type Re2Pattern } from './linear-regexp.js';
import { anyInvisibleRe2 } from './invisible-unicode.js';
import { secretNamePattern, secretRuleAnchors } from './secret-rules.js';

/**
 * Whitespace between two words of an injection anchor: in a row's JSON text a line break
 * or tab inside a value is written `\n` or `\t`, so the anchors accept those escapes too.
 */
const gap = '(?:[\\s\\p{Zs}]|\\\\[nrtf])';
/**
 * Loose anchors of the injection rules: they must match the serialized row
 * too, where a line break inside a value is the two characters `\n` and quotes are `\"`.
 */
const injectionAnchors =
  `(?i:<\\||\\[/?INST\\]|<</?SYS>>|(?i:system|assistant|developer)(?:[ \\t]|\\\\t)*:|#{2,}|` +
  `(?i:ignore|disregard|forget|override|bypass|you${gap}+are${gap}+now|instructions?${gap}*:|do${gap}+not${gap}+(?:tell|inform|alert|mention)|system${gap}+prompt|hidden${gap}+instructions|initial${gap}+instructions|tool_calls?|function_calls?|tool_use|invoke|\\\\?"arguments|\\\\?"parameters))`;
/** Invisible characters written as JSON escapes in a row's own source text. */
const escapedInvisible = '\\\\u(?i:202[a-e]|206[0-9]|200[b-f]|feff|db40)';
/**
 * Printable ASCII, whitespace or a slash written as a JSON escape (`\u0041`, `\u000a`, `\/`):
 * JSON.stringify never writes them, but a server may (PHP escapes every slash), and the anchors above read the
 * source text, where `postgres:\/\/` or an escaped key would slip past them. Such a row is walked.
 */
const escapedAscii = '\\\\(?:/|u00(?i:0[9acd]|[2-7][0-9a-f]))';

let trigger: { test: Re2Pattern; scan: Re2Pattern } | undefined;

function triggerPatterns(): { test: Re2Pattern; scan: Re2Pattern } {
  if (trigger !== undefined) return trigger;
  const source = [...secretRuleAnchors(), secretNamePattern, injectionAnchors, escapedInvisible, escapedAscii, anyInvisibleRe2]
    .map((part) => `(?:${part})`)
    .join('|');
  // test: no 'g' flag, so a plain test stops at the first accepting state instead of working out where a match ends.
  // scan: the same pattern, global, for a block of rows (where each match starts says which row it is in).
  trigger = { test: linearPattern(source), scan: linearPattern(source, 'g') };
  return trigger;
}

/**
 * Builds the prefilter's pattern now (RE2 compiling the union of every rule, ~0.05–0.1 s
 * here) rather than in the first spill that is screened: a served host calls it once up.
 */
export function preparePrefilter(): void {
  triggerPatterns();
}

/**
 * One linear pass that is true whenever any rule could match inside the text
 * (a superset): a text it passes over is clean without running each rule.
 */
export function textMayHoldFindings(text: string): boolean {
  return triggerPatterns().test.test(text);
}

/** Rows joined into blocks of about this many characters: one call into RE2 per clean block. */
const blockChars = 64 * 1024;

/** The most bytes the reused encoding buffer grows to; a longer block (one huge row) gets its own. */
const maxScratchBytes = 4 * 1024 * 1024;
let scratch: Buffer | undefined;

/**
 * A block's UTF-8 bytes in a buffer kept between calls (node-re2 reads a Buffer
 * as it is, never caching it): encoding 100 KB into fresh memory took ~68 µs
 * here, into memory already touched ~5 µs. Valid until the next call.
 */
function utf8Of(block: string): Buffer {
  const most = block.length * 3;
  if (most > maxScratchBytes) return Buffer.from(block, 'utf8');
  if (scratch === undefined || most > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.max(most, 3 * blockChars));
  return scratch.subarray(0, scratch.write(block, 0, 'utf8'));
}

/**
 * The rows (indices) whose JSON text may hold a finding: the rows a trigger
 * match starts in (the same rows as testing each row alone: no trigger part
 * uses `^` or `$` without `m`, and a row joined to the next by "\n" keeps the
 * context a row alone has at its ends), which includes the rows with invisible characters.
 * A row it passes over is clean without being walked, which keeps screening
 * inside the spill's own pass. Rows are scanned as UTF-8 blocks of about 64 KB
 * (RE2 reads a Buffer as it is, so match offsets are bytes): one call into RE2
 * for a clean block, one more per row that matches, where each row alone cost
 * a call and a conversion to UTF-8.
 */
export function rowsMayHoldFindings(lines: readonly string[]): Set<number> {
  const flagged = new Set<number>();
  for (let first = 0; first < lines.length;) {
    let chars = 0;
    let end = first;
    while (end < lines.length && (end === first || chars < blockChars)) {
      chars += (lines[end] ?? '').length + 1;
      end += 1;
    }
    const block = end === first + 1 ? (lines[first] ?? '') : lines.slice(first, end).join('\n');
    // One pass over a clean block either way; a test first would make a block that matches cost two.
    flagMatchingRows(utf8Of(block), lines, first, flagged);
    first = end;
  }
  return flagged;
}

/**
 * Flags each row of a block (`lines` from `first`, joined by "\n") that a
 * trigger match starts in. After a match the scan resumes at the next row's
 * start, so a match running on into the next row cannot hide one that starts there.
 */
function flagMatchingRows(block: Buffer, lines: readonly string[], first: number, flagged: Set<number>): void {
  const pattern = triggerPatterns().scan;
  let row = first;
  let rowStart = 0;
  let rowEnd = Buffer.byteLength(lines[row] ?? '');
  pattern.lastIndex = 0;
  for (let match = pattern.exec(block); match !== null; match = pattern.exec(block)) {
    // Rows' byte lengths are measured only up to the last match.
    while (match.index > rowEnd) {
      row += 1;
      rowStart = rowEnd + 1;
      rowEnd = rowStart + Buffer.byteLength(lines[row] ?? '');
    }
    flagged.add(row);
    if (rowEnd + 1 >= block.length) return;
    pattern.lastIndex = rowEnd + 1;
  }
}
