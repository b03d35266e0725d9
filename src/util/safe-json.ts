import secureJson from 'secure-json-parse';

/**
 * JSON.parse that refuses `__proto__` and `constructor.prototype` keys, for JSON a
 * model or a user wrote (argument files, overrides, configuration) that is later
 * merged into other objects.
 */
export function parseJsonSafely(text: string): unknown {
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}

/** {@link parseJsonSafely}, with a parse failure turned into the caller's own error (given the parser's reason). */
export function parseJsonOr(text: string, failure: (reason: string) => Error): unknown {
  try {
    return parseJsonSafely(text);
  } catch (error) {
    throw failure((error as Error).message);
  }
}
