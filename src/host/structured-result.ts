import type { TSchema } from '@sinclair/typebox';
import { Type } from '../util/type-builder.js';
import { isRetryable, type ErrorCode } from '../errors.js';
import { toSpillMeta, type ScreeningCounts, type SpillMeta } from '../spill/spill-ref.js';
import type { ExecuteResult } from './host.js';
import type { Attachment, JsonSchema, OutputSchema } from './tool.js';

const screeningCountsSchema = Type.Object(
  {
    secretAction: Type.Union([Type.Literal('redact'), Type.Literal('flag')], {
      description: 'redact: the model read [REDACTED:kind]; flag: shown as they are.',
    }),
    secrets: Type.Integer({ minimum: 0 }),
    injections: Type.Integer({ minimum: 0, description: 'Passages that read like instructions to the model.' }),
    invisible: Type.Integer({ minimum: 0, description: 'Invisible Unicode runs (tags, bidi controls, zero-width runs), shown escaped.' }),
    kinds: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Secrets per kind (aws-access-key, jwt, ...).' }),
    kept: Type.Optional(Type.Boolean({ description: 'true: the spill file keeps the original values of redacted secrets.' })),
    findings: Type.Optional(
      Type.Array(
        Type.Object({
          category: Type.String({ description: 'secret, injection or invisible.' }),
          kind: Type.String(),
          row: Type.Optional(Type.Integer({ minimum: 1 })),
          field: Type.Optional(Type.String()),
          line: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
        { description: "Spill references: each finding's kind and place (never the value), at most screening.maxFindings." },
      ),
    ),
    unlisted: Type.Optional(Type.Integer({ minimum: 0, description: 'Findings counted but not listed.' })),
  },
  { description: 'What screening found in the result (docs/security.md); absent when nothing.' },
);

const spillMetaSchema = Type.Object(
  {
    path: Type.String({ description: 'Relative to the conversation folder, e.g. "results/0007-query_sql.jsonl".' }),
    format: Type.Union([Type.Literal('jsonl'), Type.Literal('json'), Type.Literal('text'), Type.Literal('binary')]),
    bytes: Type.Integer({ minimum: 0 }),
    rows: Type.Optional(Type.Integer({ minimum: 0, description: 'Tables: rows actually written.' })),
    columns: Type.Optional(Type.Array(Type.String(), { description: 'Tables: column names in first-seen order.' })),
    expiresAt: Type.String({ description: 'ISO 8601 time after which retention may delete the file.' }),
    screening: Type.Optional(screeningCountsSchema),
  },
  { description: 'A file the result was saved to (the spill reference).' },
);

const attachmentSchema = Type.Object(
  {
    path: Type.String({ description: 'Under outputs/, relative to the conversation folder.' }),
    filename: Type.String(),
    bytes: Type.Integer({ minimum: 0 }),
    mimeType: Type.String(),
    rows: Type.Optional(Type.Integer({ minimum: 0 })),
    uri: Type.String({ description: 'Read it back with resources/read.' }),
    downloadUrl: Type.Optional(Type.String({ description: 'A signed HTTP link to the file for a browser or an e-mail (when server.publicUrl is set).' })),
    downloadExpiresAt: Type.Optional(Type.String({ description: 'ISO 8601 time the link stops working.' })),
  },
  { description: 'A download card: a file this call placed in outputs/.' },
);

/**
 * The `structuredContent` of a spillway tool's result: the tool's own value
 * (its `outputSchema`) under `result` when the whole of it fits inline, plus
 * the spill reference and the host's notes as fields.
 */
export function structuredResultSchema(resultSchema: OutputSchema): JsonSchema {
  return Type.Object({
    result: Type.Optional(Type.Unsafe({ ...resultSchema, description: resultSchema.description ?? "The tool's result." } as TSchema)),
    truncated: Type.Boolean({ description: 'true: the model saw only a whole-record prefix; `result` is absent and the spill file holds all of it.' }),
    spill: Type.Optional(spillMetaSchema),
    files: Type.Optional(Type.Array(spillMetaSchema, { description: 'Binary blocks (images, audio) saved as their own files.' })),
    attachments: Type.Optional(Type.Array(attachmentSchema)),
    notes: Type.Array(Type.String(), { description: "The host's sentences the model read beside the result: how much is shown, where the file is." }),
    screening: Type.Optional(screeningCountsSchema),
  }) as JsonSchema;
}

export interface StructuredResult {
  result?: unknown;
  truncated: boolean;
  spill?: SpillMeta;
  files?: SpillMeta[];
  attachments?: Attachment[];
  notes: string[];
  screening?: ScreeningCounts;
}

/** An ExecuteResult as the structured content its tool's output schema describes (successful calls only). */
export function toStructuredResult(result: ExecuteResult): StructuredResult {
  const structured: StructuredResult = { truncated: result.truncated, notes: result.notes };
  if (result.value !== undefined) structured.result = result.value;
  if (result.spill !== undefined) structured.spill = toSpillMeta(result.spill);
  if (result.files.length > 0) structured.files = result.files.map(toSpillMeta);
  if (result.attachments.length > 0) structured.attachments = result.attachments;
  if (result.screening !== undefined) structured.screening = result.screening;
  return structured;
}

/** What a failed call carries in `_meta["spillway/error"]`. */
export interface ErrorMeta {
  code: ErrorCode;
  details: Record<string, unknown>;
  retryable: boolean;
}

export const errorMetaKey = 'spillway/error';

export function toErrorMeta(error: NonNullable<ExecuteResult['error']>): ErrorMeta {
  return { code: error.code, details: error.details ?? {}, retryable: isRetryable(error.code) };
}
