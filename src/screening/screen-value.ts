import type { Finding, FindingCollector } from './findings.js';
import { hasFindings, inspectString, rewriteString, type StringFindings } from './screen-string.js';
import type { ScreeningPolicy } from './screening-policy.js';

/** Where a string stands: the place findings are listed under. */
type Place = Pick<Finding, 'row' | 'field'>;

function record(found: StringFindings, place: Place, collector: FindingCollector): void {
  for (const secret of found.secrets) collector.add({ category: 'secret', kind: secret.kind, ...place });
  for (const kind of new Set(found.injections.map((match) => match.kind))) collector.add({ category: 'injection', kind, ...place });
  for (const kind of new Set(found.invisible.map((match) => match.kind))) collector.add({ category: 'invisible', kind, ...place });
}

const childPath = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;

interface Walk {
  policy: ScreeningPolicy;
  collector: FindingCollector;
  row?: number;
}

/** Screens a JSON value's strings in place order; returns the value the model reads (the same object when nothing changes). */
function walk(value: unknown, path: string, name: string | undefined, scope: Walk): unknown {
  if (typeof value === 'string') {
    const found = inspectString(value, scope.policy, name);
    if (!hasFindings(found)) return value;
    const place: Place = { ...(scope.row === undefined ? {} : { row: scope.row }), ...(path === '' ? {} : { field: path }) };
    record(found, place, scope.collector);
    return rewriteString(value, found, scope.policy);
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const next = walk(item, childPath(path, index), name, scope);
      if (next !== item) {
        copy ??= value.slice();
        copy[index] = next;
      }
    }
    return copy ?? value;
  }
  if (typeof value === 'object' && value !== null) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = walk(item, childPath(path, key), key, scope);
      if (next !== item) {
        // defineProperty: a key named __proto__ stays a plain own key.
        copy ??= { ...(value as Record<string, unknown>) };
        Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
      }
    }
    return copy ?? value;
  }
  return value;
}

/** Screens a JSON result (not a table); findings are placed by JSON path. */
export function screenJson(value: unknown, policy: ScreeningPolicy, collector: FindingCollector): unknown {
  return walk(value, '', undefined, { policy, collector });
}

/** Screens one table row (`row`: 1-based); returns the row the model reads, or undefined when it is unchanged. */
export function screenRow(row: unknown, rowNumber: number, policy: ScreeningPolicy, collector: FindingCollector): unknown {
  const next = walk(row, '', undefined, { policy, collector, row: rowNumber });
  return next === row ? undefined : next;
}
