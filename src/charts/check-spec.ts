import { SpillwayError } from '../errors.js';
import { isJsonObject } from '../util/is-json-object.js';
import { checkExpression } from './chart-expressions.js';
import { checkArea, checkCaps, type SizeLimits } from './spec-caps.js';

const maxSpecChars = 64 * 1024;

/** Keys that bring data, fetch something, or make a chart interactive: spillway binds the rows itself and draws a still image. */
const refusedKeys = new Map<string, string>([
  ['data', 'a spec may not bring data of its own: spillway binds the rows of `source`'],
  ['datasets', 'a spec may not bring datasets of its own: spillway binds the rows of `source`'],
  ['url', 'a spec may not fetch URLs'],
  ['href', 'links have no place in a chart image'],
  ['signals', 'raw Vega signals are not accepted: give a Vega-Lite spec'],
  ['bind', 'interactive bindings (input widgets) have no place in a static chart'],
  ['select', 'interactive selections have no place in a static chart'],
  ['loader', 'a spec may not set a loader'],
]);

/** Vega-Lite keys whose string value is an expression (besides every key ending in `Expr`). */
const expressionKeys = new Set(['expr', 'calculate', 'filter', 'test', 'signal', 'update']);

/** The limits the spec's sizes are checked against (the config's charts.maxPixels and charts.scale). */
export const defaultSizeLimits: SizeLimits = { maxPixels: 4096 * 4096, scale: 2 };

/**
 * Checks a model's Vega-Lite spec before anything renders it: a plain object
 * of at most 64 KiB, no data, URLs, links or interaction of its own, no image
 * marks (they load URLs), every expression parsed and calling only allowed
 * functions, and sizes, bins and generated values within their caps.
 */
export function checkChartSpec(spec: unknown, limits: SizeLimits = defaultSizeLimits): Record<string, unknown> {
  if (!isJsonObject(spec)) throw invalid('The spec must be a Vega-Lite JSON object such as {"mark": "bar", "encoding": {...}}.', '');
  walk(spec, '', limits, 0);
  const text = JSON.stringify(spec);
  if (text.length > maxSpecChars) throw invalid(`The spec is ${text.length} characters; at most ${maxSpecChars} are allowed.`, '');
  return spec;
}

/** Deeper than any real spec; a deeper one is refused before anything recurses through it. */
const maxDepth = 64;

function walk(value: unknown, pointer: string, limits: SizeLimits, depth: number): void {
  if (depth > maxDepth) throw invalid(`Refused at ${pointer}: the spec is nested more than ${maxDepth} levels deep.`, pointer);
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${pointer}/${index}`, limits, depth + 1));
    return;
  }
  if (!isJsonObject(value)) return;
  checkArea(value, pointer, limits);
  for (const [key, member] of Object.entries(value)) {
    const at = `${pointer}/${key}`;
    const reason = refusedKeys.get(key);
    if (reason !== undefined) throw invalid(`Refused at ${at}: ${reason}. Remove it; pass the data as \`source\` (a sandbox path).`, at);
    if ((key === 'mark' || key === 'type') && (member === 'image' || (isJsonObject(member) && member.type === 'image'))) {
      throw invalid(`Refused at ${at}: image marks load URLs. Use bar, line, point, area, rect, arc, text, tick or rule.`, at);
    }
    if (typeof member === 'string' && (expressionKeys.has(key) || key.endsWith('Expr'))) checkExpression(member, at);
    checkCaps(value, key, member, at, limits);
    walk(member, at, limits, depth + 1);
  }
}

function invalid(message: string, pointer: string): SpillwayError {
  return new SpillwayError('CHART_SPEC_INVALID', message, { pointer });
}
