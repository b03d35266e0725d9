import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import cron from 'node-cron';
import { SpillwayError } from '../errors.js';
import { parseJsonOr } from '../util/safe-json.js';
import { isJsonObject } from '../util/is-json-object.js';
import { configCheck, explainingValidator, type ConfigCheck } from './config-check.js';
import { explainConfigErrors } from './explain-config-errors.js';
import { packageRoot } from './package-root.js';
import { defaultsOf } from './schema-defaults.js';
import { configSchema, type Config } from './schema.js';

/** Generated from {@link configSchema} (`npm run docs`): what users and editors read. */
export const defaultConfigFile = path.join(packageRoot, 'config', 'default.json');
export const configSchemaFile = path.join(packageRoot, 'config', 'schema.json');

export interface LoadConfigOptions {
  /** A JSON file laid over the defaults (`--config FILE`). */
  file?: string | undefined;
  /** Environment to read SPILLWAY_CONFIG from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Values laid over everything else (library use); relative paths resolve against `cwd`. */
  overrides?: unknown;
  cwd?: string;
}

/**
 * Takes the defaults (the schema's, as in config/default.json), lays the user's file and programmatic overrides on
 * top, resolves relative paths against the folder of the layer that set them,
 * and validates the result. Fails with CONFIG_INVALID naming every bad key.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  let merged = resolvePaths(defaultsOf(configSchema), packageRoot);
  const file = options.file ?? (env.SPILLWAY_CONFIG || undefined);
  if (file !== undefined) {
    const absolute = path.resolve(options.cwd ?? process.cwd(), file);
    merged = deepMerge(merged, resolvePaths(readJsonFile(absolute), path.dirname(absolute)));
  }
  if (options.overrides !== undefined) {
    merged = deepMerge(merged, resolvePaths(structuredClone(options.overrides), options.cwd ?? process.cwd()));
  }
  return validateConfig(merged);
}

let check: ConfigCheck | undefined;

/** Validates a complete configuration object (already merged and path-resolved). */
export function validateConfig(candidate: unknown): Config {
  check ??= configCheck(configSchema);
  if (!check(candidate)) {
    const validate = explainingValidator(configSchema);
    validate(candidate);
    const problems = explainConfigErrors(validate.errors ?? []);
    throw new SpillwayError('CONFIG_INVALID', `Invalid configuration:\n- ${problems.join('\n- ')}`, {
      errors: problems,
    });
  }
  const config = candidate as Static<typeof configSchema>; // checked against the schema: typed from here on
  delete config.$schema;
  const semantic: string[] = [];
  if (!cron.validate(config.retention.cron)) {
    semantic.push(`retention.cron: "${config.retention.cron}" is not a valid cron expression (e.g. "0 */6 * * *")`);
  }
  if (path.parse(config.sandbox.root).root === config.sandbox.root) {
    semantic.push(`sandbox.root: "${config.sandbox.root}" is a filesystem root; choose a dedicated folder`);
  }
  if (config.upstream.reconnectMaxMs < config.upstream.reconnectMinMs) {
    semantic.push('upstream.reconnectMaxMs: must be at least upstream.reconnectMinMs');
  }
  if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
    semantic.push('server.headersTimeoutMs: must be at most server.requestTimeoutMs');
  }
  if (semantic.length > 0) {
    throw new SpillwayError('CONFIG_INVALID', `Invalid configuration:\n- ${semantic.join('\n- ')}`, { errors: semantic });
  }
  return config;
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SpillwayError('CONFIG_UNREADABLE', `Cannot read the configuration file ${file}: ${(error as Error).message}`, { file });
  }
  return parseJsonOr(text, (reason) => new SpillwayError('CONFIG_UNREADABLE', `The configuration file ${file} is not valid JSON: ${reason}`, { file }));
}

type Json = Record<string, unknown>;

/** Objects merge key by key; arrays and scalars from `top` replace. */
export function deepMerge(base: unknown, top: unknown): Json {
  if (!isJsonObject(base) || !isJsonObject(top)) return (isJsonObject(top) ? top : base) as Json;
  const result: Json = { ...base };
  for (const [key, value] of Object.entries(top)) {
    result[key] = isJsonObject(value) && isJsonObject(result[key]) ? deepMerge(result[key], value) : value;
  }
  return result;
}

/** Makes the path-valued keys of one layer absolute against that layer's folder. */
function resolvePaths(layer: unknown, baseDir: string): Json {
  if (!isJsonObject(layer)) {
    throw new SpillwayError('CONFIG_INVALID', 'Invalid configuration: the top level must be a JSON object', {
      errors: ['(top level): must be object'],
    });
  }
  // Only keys the layer sets: writing `root: undefined` into `{"sandbox": {}}` would hide the default under it.
  const resolve = (holder: unknown, key: string): void => {
    if (!isJsonObject(holder) || !Object.hasOwn(holder, key)) return;
    const value = holder[key];
    if (typeof value === 'string' && value.length > 0) holder[key] = path.resolve(baseDir, value);
  };
  resolve(layer.sandbox, 'root');
  resolve(layer.data, 'dir');
  const sql = layer.sql;
  if (isJsonObject(sql) && isJsonObject(sql.source) && sql.source.type === 'sqlite') resolve(sql.source, 'file');
  const upstreams = layer.upstreams;
  if (isJsonObject(upstreams)) for (const entry of Object.values(upstreams)) resolve(entry, 'cwd');
  return layer;
}
