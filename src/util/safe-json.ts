import secureJson from 'secure-json-parse';

/**
 * JSON.parse that refuses `__proto__` and `constructor.prototype` keys, for JSON a
 * model or a user wrote (argument files, overrides, configuration) that is later
 * merged into other objects.
 */
export function parseJsonSafely(text: string): unknown {
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}
