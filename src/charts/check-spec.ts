import { SpillwayError } from '../errors.js';
import { isJsonObject } from '../util/is-json-object.js';

const maxSpecChars = 64 * 1024;

/** Keys that bring data or fetch something: spillway binds the rows itself. */
const refusedKeys = new Map<string, string>([
  ['data', 'a spec may not bring data of its own: spillway binds the rows of `source`'],
  ['datasets', 'a spec may not bring datasets of its own: spillway binds the rows of `source`'],
  ['url', 'a spec may not fetch URLs'],
  ['signals', 'raw Vega signals are not accepted: give a Vega-Lite spec'],
  ['bind', 'interactive bindings (input widgets) have no place in a static chart'],
  ['loader', 'a spec may not set a loader'],
]);

/**
 * Vega expression functions that build large values or reach other data;
 * with them a one-line expression can allocate gigabytes or loop for minutes.
 * (The worker's deadline and memory cap are the backstop; this is the clear message.)
 */
const refusedFunctions = /\b(sequence|pad|repeat|data|indata|modify|vlSelectionTest|vlSelectionResolve|setdata|timer|random)\s*\(/;

/** Vega-Lite keys whose string value is an expression. */
const expressionKeys = new Set(['expr', 'calculate', 'filter', 'test', 'signal', 'update']);

/**
 * Checks a model's Vega-Lite spec before anything renders it: a plain object,
 * no data or URLs of its own, no image marks (they load URLs), no refused
 * expression functions, and not larger than 64 KiB.
 */
export function checkChartSpec(spec: unknown): Record<string, unknown> {
  if (!isJsonObject(spec)) throw invalid('The spec must be a Vega-Lite JSON object such as {"mark": "bar", "encoding": {...}}.', '');
  const text = JSON.stringify(spec);
  if (text.length > maxSpecChars) throw invalid(`The spec is ${text.length} characters; at most ${maxSpecChars} are allowed.`, '');
  walk(spec, '');
  return spec;
}

function walk(value: unknown, pointer: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${pointer}/${index}`));
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, member] of Object.entries(value)) {
    const at = `${pointer}/${key}`;
    const reason = refusedKeys.get(key);
    if (reason !== undefined) throw invalid(`Refused at ${at}: ${reason}. Remove it; pass the data as \`source\` (a sandbox path).`, at);
    if ((key === 'mark' || key === 'type') && (member === 'image' || (isJsonObject(member) && member.type === 'image'))) {
      throw invalid(`Refused at ${at}: image marks load URLs. Use bar, line, point, area, rect, arc, text, tick or rule.`, at);
    }
    if (typeof member === 'string' && (expressionKeys.has(key) || key.endsWith('Expr')) && refusedFunctions.test(member)) {
      const name = refusedFunctions.exec(member)?.[1];
      throw invalid(`Refused at ${at}: the expression function ${name}() is not allowed in charts (it can build unbounded values or reach other data).`, at);
    }
    walk(member, at);
  }
}

function invalid(message: string, pointer: string): SpillwayError {
  return new SpillwayError('CHART_SPEC_INVALID', message, { pointer });
}
