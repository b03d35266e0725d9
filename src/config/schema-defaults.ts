import { isJsonObject } from '../util/is-json-object.js';

/**
 * The value the `default` keywords of a schema describe: a schema with its
 * own default gives a copy of it; an object schema without one gives an
 * object of its members' defaults. Each call returns fresh objects.
 */
export function defaultsOf(schema: unknown): unknown {
  if (!isJsonObject(schema)) return undefined;
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (!isJsonObject(schema.properties)) return undefined;
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(schema.properties)) {
    const value = defaultsOf(member);
    if (value !== undefined) result[key] = value;
  }
  return result;
}
