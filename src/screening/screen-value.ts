import type { Finding, FindingCollector } from './findings.js';
import { hasFindings, inspectString, rewriteString, type StringFindings } from './screen-string.js';
import type { ScreeningPolicy } from './screening-policy.js';

/** A value as the model reads it and as the file keeps it (the same objects as the input where nothing changed). */
export interface Screened<T = unknown> {
  model: T;
  file: T;
}

/** Where a string stands: the place findings are listed under. */
type Place = Pick<Finding, 'row' | 'field'>;

function record(found: StringFindings, place: Place, collector: FindingCollector): void {
  for (const secret of found.secrets) collector.add({ category: 'secret', kind: secret.kind, ...place });
  for (const kind of new Set(found.injections.map((match) => match.kind))) collector.add({ category: 'injection', kind, ...place });
  for (const kind of new Set(found.invisible.map((match) => match.kind))) collector.add({ category: 'invisible', kind, ...place });
}

const childPath = (parent: string, key: string | number) =>
  typeof key === 'number'
    ? `${parent}[${key}]`
    : parent === ''
      ? key
      : /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${parent}.${key}`
        : `${parent}[${JSON.stringify(key)}]`;

interface Walk {
  policy: ScreeningPolicy;
  collector: FindingCollector;
  row?: number;
}

/** Sets a key as a plain own property (a key named __proto__ stays data). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Screens a JSON value's strings in place order. */
function walk(value: unknown, path: string, name: string | undefined, scope: Walk): Screened {
  if (typeof value === 'string') {
    const found = inspectString(value, scope.policy, name);
    if (!hasFindings(found)) return { model: value, file: value };
    const place: Place = { ...(scope.row === undefined ? {} : { row: scope.row }), ...(path === '' ? {} : { field: path }) };
    record(found, place, scope.collector);
    return { model: rewriteString(value, found, scope.policy, 'model'), file: rewriteString(value, found, scope.policy, 'file') };
  }
  if (Array.isArray(value)) {
    let model: unknown[] | undefined;
    let file: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const next = walk(item, childPath(path, index), name, scope);
      if (next.model !== item) (model ??= value.slice())[index] = next.model;
      if (next.file !== item) (file ??= value.slice())[index] = next.file;
    }
    return { model: model ?? value, file: file ?? value };
  }
  if (typeof value === 'object' && value !== null) {
    let model: Record<string, unknown> | undefined;
    let file: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = walk(item, childPath(path, key), key, scope);
      if (next.model !== item) setOwn((model ??= { ...(value as Record<string, unknown>) }), key, next.model);
      if (next.file !== item) setOwn((file ??= { ...(value as Record<string, unknown>) }), key, next.file);
    }
    return { model: model ?? value, file: file ?? value };
  }
  return { model: value, file: value };
}

/** Screens a JSON result (not a table); findings are placed by JSON path. */
export function screenJson(value: unknown, policy: ScreeningPolicy, collector: FindingCollector): Screened {
  return walk(value, '', undefined, { policy, collector });
}

/** Screens one table row (`rowNumber`: 1-based); undefined when nothing in it changes. */
export function screenRow(row: unknown, rowNumber: number, policy: ScreeningPolicy, collector: FindingCollector): Screened | undefined {
  const next = walk(row, '', undefined, { policy, collector, row: rowNumber });
  return next.model === row && next.file === row ? undefined : next;
}
