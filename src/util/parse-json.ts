import { SpillwayError } from '../errors.js';

/**
 * JSON.parse that fails with INVALID_JSON: `message` turns the parser's reason
 * ("Unexpected token } in JSON at position 7") into a sentence naming the file
 * and place; `details` go with the error.
 */
export function parseJsonOrFail(text: string, message: (reason: string) => string, details: Record<string, unknown>): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SpillwayError('INVALID_JSON', message((error as Error).message), details);
  }
}
