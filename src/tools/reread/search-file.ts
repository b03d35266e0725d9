import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { defineTool } from '../../host/define-tool.js';
import { formatCount } from '../../util/format.js';
import { compileUserRegExp, userRegExpSyntax } from '../../util/safe-regexp.js';
import { capLine, lineKeepChars, looksBinary, readLines, searchCheckChars, searchTimeLimitMs } from './read-lines.js';
import { searchFileOutput } from './reread-output.js';
import { readsOnly } from '../tool-annotations.js';

export const searchFileTool = defineTool({
  name: 'search_file',
  readsConversationFiles: true,
  outputSchema: searchFileOutput,
  description: [
    'Find the lines of a sandbox file that contain a text (or match a regular expression with regex: true), with their line numbers.',
    'Use it to locate something in a large spilled result, then read_file with offset to see the surroundings.',
    'Matching is case-sensitive text by default. A line longer than 65,536 characters is searched within its first 65,536 (the result says so). To filter or aggregate rows, write SQL instead (query_sql, or query_files over a spilled file).',
  ].join(' '),
  inputSchema: Type.Object(
    {
      path: Type.String({ description: 'File path relative to the conversation folder.' }),
      pattern: Type.String({
        minLength: 1,
        maxLength: 4096,
        description: `Text to find (or a regular expression when regex is true: ${userRegExpSyntax}).`,
      }),
      regex: Type.Optional(Type.Boolean({ description: 'Treat pattern as a regular expression. Default false.' })),
      ignoreCase: Type.Optional(Type.Boolean({ description: 'Case-insensitive matching. Default false.' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Most matches to return.' })),
    },
    { additionalProperties: false },
  ),
  spill: false,
  annotations: readsOnly('Search a sandbox file'),
  async handler(args, context) {
    const caps = context.config.reread;
    const { pattern } = args;
    const ignoreCase = args.ignoreCase === true;
    const limit = Math.min(args.limit ?? caps.maxMatches, caps.maxMatches);
    const matches = args.regex === true ? regexMatcher(pattern, ignoreCase) : textMatcher(pattern, ignoreCase);
    const file = await context.sandbox.openRead(args.path);
    try {
      if (await looksBinary(file)) {
        throw new SpillwayError('PATH_NOT_FILE', `${file.relative} is a binary file and cannot be searched as text.`, { path: file.relative });
      }
      const out: string[] = [];
      let found = 0;
      let chars = 0;
      let total = 0;
      let stopped: string | undefined;
      /** Matching lines longer than lineKeepChars: only their head was searched. */
      let longLines = 0;
      const deadline = performance.now() + searchTimeLimitMs;
      let checkedChars = 0;
      for await (const line of readLines(file)) {
        total = line.number;
        // Matching is linear (RE2), but a huge file still takes time: the call's cancel and a time limit stop it,
        // checked every 256 lines or every MiB of long lines.
        checkedChars += line.text.length;
        if (line.number % 256 === 0 || checkedChars >= searchCheckChars) {
          checkedChars = 0;
          if (context.signal.aborted) stopped = 'the call was cancelled';
          else if (performance.now() > deadline) stopped = `it ran longer than ${searchTimeLimitMs / 1000} s`;
          if (stopped !== undefined) break;
        }
        const cut = line.length > line.text.length;
        if (cut) longLines += 1;
        if (!matches(line.text, cut)) continue;
        found += 1;
        if (out.length >= limit) continue;
        const text = `${String(line.number).padStart(6)}\t${capLine(line.text, caps.maxLineChars, line.length)}`;
        if (chars + text.length > caps.maxChars && out.length > 0) continue;
        out.push(text);
        chars += text.length + 1;
      }
      const note =
        longLines === 0
          ? ''
          : `\n[${formatCount(longLines)} line${longLines === 1 ? ' is' : 's are'} longer than ${formatCount(lineKeepChars)} characters; only the first ${formatCount(lineKeepChars)} characters of ${longLines === 1 ? 'it were' : 'each were'} searched. Query a data file with query_files instead.]`;
      if (stopped !== undefined) {
        const head = `[Search stopped after ${formatCount(total)} lines of ${file.relative} because ${stopped}; the rest of the file was not searched. ${formatCount(found)} matching line${found === 1 ? '' : 's'} so far. Narrow the search (a more specific pattern) or read a part with read_file.]`;
        return { value: `${out.length === 0 ? head : `${head}\n${out.join('\n')}`}${note}` };
      }
      if (found === 0) return { value: `[No line of ${file.relative} (${formatCount(total)} lines) matches ${JSON.stringify(pattern)}.]${note}` };
      const shown = out.length < found ? `; showing the first ${formatCount(out.length)} (cap reached; narrow the pattern)` : '';
      return {
        value: `[${formatCount(found)} matching line${found === 1 ? '' : 's'} in ${file.relative} (${formatCount(total)} lines)${shown}]\n${out.join('\n')}${note}`,
      };
    } finally {
      await file.handle.close();
    }
  },
});

/** Whether a line matches; `cut` says the text is only the head of a longer line. */
type LineMatcher = (line: string, cut: boolean) => boolean;

function textMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  if (!ignoreCase) return (line) => line.includes(pattern);
  const lower = pattern.toLowerCase();
  return (line) => line.toLowerCase().includes(lower);
}

function regexMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  // RE2: linear in the line whatever the pattern, so no pattern can stall the host.
  const regex = compileUserRegExp(pattern, ignoreCase ? 'iu' : 'u');
  // The head of a cut line does not end where the line ends: a line break after it keeps `$` (and `a+$`) from matching at the cut.
  return (line, cut) => regex.test(cut ? `${line}\n` : line);
}
