import type { Static } from '@sinclair/typebox';
import { Type } from '../util/type-builder.js';
import { sandboxSchema, dataSchema, demoSchema, watchSchema, logSchema } from './sections/basics.js';
import { serverSchema, serverAuth, bearerToken } from './sections/server.js';
import { spillSchema, inlineSchema, errorsSchema, rereadSchema, resourcesSchema, argsSchema, drawTableSchema, spillToolOverride } from './sections/spill.js';
import { documentsSchema, workersSchema, recordsSchema } from './sections/files.js';
import { retentionSchema } from './sections/retention.js';
import { coordinationSchema } from './sections/coordination.js';
import { tasksSchema } from './sections/tasks.js';
import { policySchema, screeningSchema } from './sections/policy.js';
import { upstreamsSchema, upstreamSchema, upstreamServer } from './sections/upstreams.js';
import { scriptSchema, sqlSchema, analysisSchema, chartsSchema, sqlSource } from './sections/engines.js';
import { closed, decision } from './sections/parts.js';

/**
 * The configuration schema: the one place a key, its type, its limits, its
 * description and its default are written. It is the JSON Schema ajv checks
 * a configuration against, `Config` is derived from it, and
 * config/schema.json, config/default.json and docs/configuration.md are
 * generated from it (`npm run docs`; a test fails when they are stale).
 */

export const configSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'Ignored; lets editors find this schema.' })),
    sandbox: sandboxSchema,
    data: dataSchema,
    server: serverSchema,
    spill: spillSchema,
    inline: inlineSchema,
    errors: errorsSchema,
    reread: rereadSchema,
    resources: resourcesSchema,
    args: argsSchema,
    drawTable: drawTableSchema,
    documents: documentsSchema,
    workers: workersSchema,
    records: recordsSchema,
    retention: retentionSchema,
    coordination: coordinationSchema,
    tasks: tasksSchema,
    policy: policySchema,
    screening: screeningSchema,
    upstreams: upstreamsSchema,
    upstream: upstreamSchema,
    script: scriptSchema,
    sql: sqlSchema,
    analysis: analysisSchema,
    charts: chartsSchema,
    demo: demoSchema,
    watch: watchSchema,
    log: logSchema,
  },
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://spillway.dev/config.schema.json',
    title: 'spillway configuration',
    description:
      'Every key has a default in config/default.json. A file given with --config or SPILLWAY_CONFIG is laid over the defaults; relative paths resolve against the folder of the file that sets them.',
    ...closed,
  },
);

/** The configuration as loaded: every key present, paths absolute. */
export type Config = Omit<Static<typeof configSchema>, '$schema'>;

export type Decision = Static<typeof decision>;
export type SpillToolOverride = Static<typeof spillToolOverride>;
export type UpstreamConfig = Static<typeof upstreamServer>;
export type SqlSource = Static<typeof sqlSource>;

/** A partial configuration as a user writes it: any subset of keys, nested. */
export type ConfigOverrides = { [K in keyof Config]?: Config[K] extends Record<string, unknown> ? Partial<Config[K]> : Config[K] };
export type ServerAuthConfig = Static<typeof serverAuth>;
export type BearerTokenConfig = Static<typeof bearerToken>;
