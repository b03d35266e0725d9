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
  /** What each key held, for one result: a table's rows repeat the same keys. */
  keys?: KeyFindings;
}

/** Object keys already inspected in one result, and what they held (up to a bound, for results with unique keys). */
export class KeyFindings {
  private readonly found = new Map<string, StringFindings>();

  constructor(private readonly max = 4096) {}

  inspect(key: string, policy: ScreeningPolicy): StringFindings {
    const known = this.found.get(key);
    if (known !== undefined) return known;
    const found = inspectString(key, policy);
    if (this.found.size < this.max) this.found.set(key, found);
    return found;
  }
}

/** Sets a key as a plain own property (a key named __proto__ stays data). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A key as the model reads it, as the file keeps it, and as finding places name it (never holding a secret). */
interface ScreenedKey {
  model: string;
  file: string;
  /** Set when the key holds a finding. */
  label?: string;
}

/**
 * Screens an object key like any string: a token used as a map's key, or an instruction
 * used as a column name, reaches the model as much as a value does. A key with a secret
 * is renamed in what the model reads (and in the file, unless screening.keep), and the
 * places of findings below it name it by its redacted form.
 */
function screenKey(key: string, path: string, scope: Walk): ScreenedKey {
  const found = scope.keys === undefined ? inspectString(key, scope.policy) : scope.keys.inspect(key, scope.policy);
  if (!hasFindings(found)) return { model: key, file: key };
  const place: Place = { ...(scope.row === undefined ? {} : { row: scope.row }), ...(path === '' ? {} : { field: path }) };
  record(found, place, scope.collector);
  const label = rewriteString(key, found, { ...scope.policy, secrets: 'redact', keep: false }, 'model');
  return { model: rewriteString(key, found, scope.policy, 'model'), file: rewriteString(key, found, scope.policy, 'file'), label };
}

/** An object from its entries; a key given twice (two keys redacted alike) gets a number, so no value is lost. */
function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    let name = key;
    for (let copy = 2; Object.prototype.hasOwnProperty.call(target, name); copy += 1) name = `${key} (${copy})`;
    setOwn(target, name, item);
  }
  return target;
}

function walkObject(value: Record<string, unknown>, path: string, scope: Walk): Screened {
  const entries = Object.entries(value);
  let model: [string, unknown][] | undefined;
  let file: [string, unknown][] | undefined;
  entries.forEach(([key, item], index) => {
    const named = screenKey(key, path, scope);
    const next = walk(item, childPath(path, named.label ?? key), key, scope);
    if (model === undefined && (next.model !== item || named.model !== key)) model = entries.slice(0, index);
    if (file === undefined && (next.file !== item || named.file !== key)) file = entries.slice(0, index);
    model?.push([named.model, next.model]);
    file?.push([named.file, next.file]);
  });
  return { model: model === undefined ? value : objectOf(model), file: file === undefined ? value : objectOf(file) };
}

/** Screens a JSON value's strings (and object keys) in place order. */
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
  if (typeof value === 'object' && value !== null) return walkObject(value as Record<string, unknown>, path, scope);
  return { model: value, file: value };
}

/** Screens a JSON result (not a table); findings are placed by JSON path. */
export function screenJson(value: unknown, policy: ScreeningPolicy, collector: FindingCollector, keys?: KeyFindings): Screened {
  return walk(value, '', undefined, { policy, collector, ...(keys === undefined ? {} : { keys }) });
}

/** Screens one table row (`rowNumber`: 1-based); undefined when nothing in it changes. */
export function screenRow(row: unknown, rowNumber: number, policy: ScreeningPolicy, collector: FindingCollector, keys?: KeyFindings): Screened | undefined {
  const next = walk(row, '', undefined, { policy, collector, row: rowNumber, ...(keys === undefined ? {} : { keys }) });
  return next.model === row && next.file === row ? undefined : next;
}
