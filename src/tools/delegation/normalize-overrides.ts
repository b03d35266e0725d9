import { SpillwayError } from '../../errors.js';
import { parseJsonSafely } from '../../util/safe-json.js';
import { isJsonObject } from '../../util/is-json-object.js';

/**
 * The `overrides` argument as a fresh object, or undefined when absent. Models
 * sometimes send an object as JSON text; that text is accepted when it parses
 * to an object. Every key goes through parseJsonSafely, so `__proto__` and
 * `constructor.prototype` are refused before anything is merged.
 */
export function normalizeOverrides(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = parseJsonSafely(raw);
    } catch (error) {
      throw new SpillwayError(
        'INVALID_JSON',
        `overrides is a string that is not JSON (${(error as Error).message}). Pass overrides as a JSON object, e.g. {"title": "…"}.`,
        {},
      );
    }
  } else if (isJsonObject(raw)) {
    try {
      value = parseJsonSafely(JSON.stringify(raw));
    } catch (error) {
      throw new SpillwayError(
        'INVALID_ARGUMENTS',
        `overrides holds a forbidden key (${(error as Error).message}); remove "__proto__" and "constructor.prototype" keys.`,
        {},
      );
    }
  }
  if (!isJsonObject(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    throw new SpillwayError(
      'ARGS_NOT_OBJECT',
      `overrides is ${kind}, not a JSON object. Pass an object mapping the target's argument names to your values, e.g. {"title": "…", "labels": ["bug"]}; arrays replace whole arguments, so put an array under its argument name.`,
      { found: Array.isArray(value) ? 'array' : typeof value },
    );
  }
  return value;
}
