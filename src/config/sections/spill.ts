import { Type } from '@sinclair/typebox';
import { recordOf } from '../../util/schema-builders.js';
import { closed } from './parts.js';

/** Configuration keys for when results spill to files and what the model reads of them. */

export const spillToolOverride = Type.Object(
  {
    thresholdChars: Type.Optional(Type.Integer({ minimum: 0, description: 'Spill threshold for these tools.' })),
    inlineMaxTokens: Type.Optional(Type.Integer({ minimum: 1, description: 'Inline token cap for these tools.' })),
    spill: Type.Optional(Type.Boolean({ description: "false keeps these tools' results inline (never written to a file)." })),
  },
  closed,
);

export const spillSchema = Type.Object(
  {
    thresholdChars: Type.Integer({
      minimum: 0,
      default: 1000,
      description: 'Results longer than this many characters (after MCP unwrapping) are spilled to results/ or errors/.',
    }),
    tools: recordOf(spillToolOverride, {
      // Query results always get a path, however small: a 10-row aggregate can then be charted or exported by path.
      default: { query_sql: { thresholdChars: 0 }, query_files: { thresholdChars: 0 } },
      description:
        'Per-tool overrides keyed by tool-name pattern (`*` matches any run of characters, e.g. `github__*`). The most specific pattern (fewest wildcards, then longest) wins. By default query_sql and query_files results always spill (threshold 0), so even a small result has a path that build_chart, export_table and build_document take.',
    }),
  },
  { ...closed, description: 'When a tool result is written to a sandbox file.' },
);

export const inlineSchema = Type.Object(
  {
    maxTokens: Type.Integer({
      minimum: 1,
      default: 50_000,
      description: 'Above this many tokens the model gets a whole-record prefix and a sentence saying how much it shows.',
    }),
    bytesPerToken: Type.Number({
      exclusiveMinimum: 0,
      default: 3,
      description: 'UTF-8 bytes per token used to estimate tokens without a tokenizer. 3 is a safe (pessimistic) figure for JSON and CSV.',
    }),
  },
  { ...closed, description: 'How much of a result the model reads inline.' },
);

export const errorsSchema = Type.Object(
  {
    headChars: Type.Integer({ minimum: 1, default: 1500, description: 'Characters kept from the start of a long error message.' }),
    tailChars: Type.Integer({ minimum: 1, default: 1500, description: "Characters kept from the end (where a traceback's exception line usually is)." }),
  },
  { ...closed, description: "How a failed call's message is shortened for the model (the full text is spilled to errors/)." },
);

export const rereadSchema = Type.Object(
  {
    maxLines: Type.Integer({ minimum: 1, default: 500, description: 'Lines returned by one read_file call at most.' }),
    maxChars: Type.Integer({ minimum: 100, default: 40_000, description: 'Characters returned by one read_file or search_file call at most.' }),
    maxLineChars: Type.Integer({
      minimum: 10,
      default: 2000,
      description: 'A longer line is cut and marked; read it with offset/limit on a pretty-printed copy or query it.',
    }),
    maxMatches: Type.Integer({ minimum: 1, default: 200, description: 'Matches returned by one search_file call at most.' }),
    maxListEntries: Type.Integer({ minimum: 1, default: 500, description: 'Files listed by one list_files call at most.' }),
  },
  { ...closed, description: 'Caps on what read_file, search_file and list_files return in one call.' },
);

export const resourcesSchema = Type.Object(
  {
    maxReadBytes: Type.Integer({
      minimum: 1024,
      default: 16_777_216,
      description:
        'Largest file one MCP resources/read returns (its size on the opened file); a larger one is refused with RESULT_TOO_LARGE naming the tools that read it in parts.',
    }),
  },
  { ...closed, description: 'MCP resources (files in outputs/) read back by a client.' },
);

export const argsSchema = Type.Object(
  {
    maxBytes: Type.Integer({
      minimum: 1,
      default: 1_048_576,
      description: 'Largest arguments file (and largest expanded arguments) a delegating call accepts, in bytes. Also caps write_file.',
    }),
  },
  { ...closed, description: 'Arguments files for delegating calls.' },
);

export const drawTableSchema = Type.Object(
  {
    maxRows: Type.Integer({ minimum: 1, default: 2000, description: 'Rows one draw_table call may draw; above it the model is told to export instead.' }),
  },
  { ...closed, description: 'The Markdown table tool.' },
);
