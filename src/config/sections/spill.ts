import { Type } from '../../util/type-builder.js';
import { recordOf } from '../../util/schema-builders.js';
import { closed, integerKey, section } from './parts.js';

/** Configuration keys for when results spill to files and what the model reads of them. */

export const spillToolOverride = Type.Object(
  {
    thresholdChars: Type.Optional(Type.Integer({ minimum: 0, description: 'Spill threshold for these tools.' })),
    inlineMaxTokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Inline token cap for these tools.' })),
    spill: Type.Optional(Type.Boolean({ description: "false keeps these tools' results inline (never written to a file)." })),
  },
  closed,
);

export const spillSchema = section('When a tool result is written to a sandbox file.', {
  thresholdChars: integerKey(0, 1000, 'Results longer than this many characters (after MCP unwrapping) are spilled to results/ or errors/.'),
  tools: recordOf(spillToolOverride, {
    // Query results always get a path, however small: a 10-row aggregate can then be charted or exported by path.
    default: { query_sql: { thresholdChars: 0 }, query_files: { thresholdChars: 0 } },
    description:
      'Per-tool overrides keyed by tool-name pattern (`*` matches any run of characters, e.g. `github__*`). The most specific pattern (fewest wildcards, then longest) wins. By default query_sql and query_files results always spill (threshold 0), so even a small result has a path that build_chart, export_table and build_document take.',
  }),
});

export const inlineSchema = section('How much of a result the model reads inline.', {
  maxTokens: integerKey(1, 50_000, 'Above this many tokens the model gets a whole-record prefix and a sentence saying how much it shows.'),
  bytesPerToken: Type.Number({
    exclusiveMinimum: 0,
    default: 3,
    description: 'UTF-8 bytes per token used to estimate tokens without a tokenizer. 3 is a safe (pessimistic) figure for JSON and CSV.',
  }),
});

export const errorsSchema = section("How a failed call's message is shortened for the model (the full text is spilled to errors/).", {
  headChars: integerKey(1, 1500, 'Characters kept from the start of a long error message.'),
  tailChars: integerKey(1, 1500, "Characters kept from the end (where a traceback's exception line usually is)."),
});

export const rereadSchema = section('Caps on what read_file, search_file and list_files return in one call.', {
  maxLines: integerKey(1, 500, 'Lines returned by one read_file call at most.'),
  maxChars: integerKey(100, 40_000, 'Characters returned by one read_file or search_file call at most.'),
  maxLineChars: integerKey(10, 2000, 'A longer line is cut and marked; read it with offset/limit on a pretty-printed copy or query it.'),
  maxMatches: integerKey(1, 200, 'Matches returned by one search_file call at most.'),
  maxListEntries: integerKey(1, 500, 'Files listed by one list_files call at most.'),
});

export const resourcesSchema = section('MCP resources (files in outputs/) read back by a client.', {
  maxReadBytes: integerKey(
    1024,
    16_777_216,
    'Largest file one MCP resources/read returns (its size on the opened file); a larger one is refused with RESULT_TOO_LARGE naming the tools that read it in parts.',
  ),
  maxConcurrentReads: integerKey(
    1,
    2,
    "resources/read calls of outputs/ files served at once (each reads and encodes up to maxReadBytes on the server's thread); four times as many wait, at most server.queueWaitMs; more are refused at once with the retryable BUSY.",
  ),
});

export const argsSchema = section('Arguments files for delegating calls.', {
  maxBytes: integerKey(1, 1_048_576, 'Largest arguments file (and largest expanded arguments) a delegating call accepts, in bytes. Also caps write_file.'),
});

export const drawTableSchema = section('The Markdown table tool.', {
  maxRows: integerKey(1, 2000, 'Rows one draw_table call may draw; above it the model is told to export instead.'),
});
