import { Type } from '../../util/type-builder.js';
import { enumOf, recordOf } from '../../util/schema-builders.js';
import { closed, decision, integerKey, section } from './parts.js';

/** Configuration keys for which calls run, ask or are refused, and how results are screened. */

const screeningToolOverride = Type.Object(
  {
    secrets: Type.Optional(enumOf(['redact', 'flag', 'off'], { description: "Secrets in these tools' results." })),
    injection: Type.Optional(enumOf(['flag', 'off'], { description: "Instruction-shaped text and invisible Unicode in these tools' results." })),
    keep: Type.Optional(Type.Boolean({ description: 'Spill files of these tools keep the original values.' })),
  },
  closed,
);

export const policySchema = section('Permission for each tool call, judged on the expanded arguments.', {
  default: enumOf(['allow', 'deny', 'ask'], { default: 'allow', description: 'Decision for local tools no rule matches.' }),
  upstreamDefault: enumOf(['allow', 'deny', 'ask'], { default: 'ask', description: 'Decision for upstream tools no rule matches.' }),
  rules: recordOf(decision, { default: {}, description: 'Tool-name pattern (`*` wildcard) to decision. The most specific pattern wins.' }),
  approvalTimeoutMs: integerKey(1, 120_000, "How long an `ask` waits for the client's answer to the approval request; no answer refuses the call."),
});

export const screeningSchema = Type.Object(
  {
    secrets: enumOf(['redact', 'flag', 'off'], {
      default: 'redact',
      description:
        'Secrets found in a result: `redact` (the model reads `[REDACTED:kind]`), `flag` (shown as they are, the model is told where they are), `off`.',
    }),
    injection: enumOf(['flag', 'off'], {
      default: 'flag',
      description: 'Instruction-shaped text and invisible Unicode in a result: `flag` (a warning line, invisible characters shown escaped) or `off`.',
    }),
    keep: Type.Boolean({
      default: false,
      description:
        'true: a spill file keeps the original values of redacted secrets (the model still reads them redacted); false: the file holds what the model read.',
    }),
    delegation: enumOf(['allow', 'deny', 'ask'], {
      default: 'ask',
      description:
        "A delegating call whose expanded arguments hold a detected secret: `ask` (approval, even where the policy allows the tool), `deny`, or `allow` (the tool's own policy decides).",
    }),
    maxFindings: integerKey(0, 100, "Findings listed by place in one result's metadata (counts are always complete)."),
    tools: recordOf(screeningToolOverride, {
      default: {},
      description: 'Tool-name pattern (`*` wildcard) to screening settings; the most specific pattern wins.',
    }),
  },
  {
    ...closed,
    description: 'Screening of tool results: secrets redacted or flagged, injected instructions and invisible Unicode flagged (docs/security.md).',
  },
);
