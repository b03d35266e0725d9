import { wholeRecordPrefix } from './whole-record-prefix.js';

export interface JsonPrefix {
  /** Valid JSON: the value cut between whole elements or members. */
  text: string;
  /** Elements (or members) shown of the container that was cut. */
  shown: number;
  total: number;
  /** Where the cut happened, as a JSONPath-like location ("$", "$.items"). */
  at: string;
  /** "elements" of an array or "members" of an object. */
  unit: 'elements' | 'members';
}

/**
 * The largest prefix of a JSON value within `budget`: whole elements of an
 * array; whole members of an object, descending into the first member that
 * does not fit when it is itself a container. Call only for values that do not
 * fit whole.
 */
export function jsonPrefix(value: unknown, budget: number, measure: (text: string) => number, at = '$'): JsonPrefix {
  if (Array.isArray(value)) {
    const elements = value.map((element) => JSON.stringify(element ?? null));
    const cut = wholeRecordPrefix(elements, budget, { measure });
    return { text: cut.text, shown: cut.count, total: value.length, at, unit: 'elements' };
  }
  if (typeof value !== 'object' || value === null) {
    return { text: 'null', shown: 0, total: 1, at, unit: 'elements' };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const kept: string[] = [];
  let used = measure('{}');
  for (const [key, member] of entries) {
    const keyText = `${JSON.stringify(key)}:`;
    const memberText = keyText + JSON.stringify(member ?? null);
    const separator = kept.length > 0 ? 1 : 0;
    if (used + separator + measure(memberText) <= budget) {
      kept.push(memberText);
      used += separator + measure(memberText);
      continue;
    }
    if (typeof member === 'object' && member !== null) {
      const inner = jsonPrefix(member, budget - used - separator - measure(keyText), measure, `${at}.${key}`);
      kept.push(keyText + inner.text);
      return { ...inner, text: `{${kept.join(',')}}` };
    }
    return { text: `{${kept.join(',')}}`, shown: kept.length, total: entries.length, at, unit: 'members' };
  }
  return { text: `{${kept.join(',')}}`, shown: kept.length, total: entries.length, at, unit: 'members' };
}
