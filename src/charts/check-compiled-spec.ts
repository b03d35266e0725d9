/**
 * The Vega spec Vega-Lite compiled, checked in the chart process before Vega
 * parses it: what Vega will run, including expressions Vega-Lite wrote itself
 * (a `formatType`, an impute range, a label expression all end up here).
 */
import { SpillwayError } from '../errors.js';
import { isJsonObject } from '../util/is-json-object.js';
import { checkExpression, generatedCount } from './chart-expressions.js';
import { maxGeneratedValues } from './chart-limits.js';

/** Vega keys whose string value is an expression (besides every key ending in `Expr`). */
const expressionKeys = new Set(['signal', 'update', 'init', 'expr', 'test']);

/** Throws CHART_SPEC_INVALID naming the pointer into the compiled spec when it asks Vega for something a static chart may not do. */
export function checkCompiledSpec(spec: unknown): void {
  walk(spec, '');
}

function refused(message: string, pointer: string): SpillwayError {
  return new SpillwayError('CHART_SPEC_INVALID', `Refused in the compiled Vega spec at ${pointer}: ${message}`, { pointer, compiled: true });
}

function walk(value: unknown, pointer: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${pointer}/${index}`));
    return;
  }
  if (!isJsonObject(value)) return;
  checkNode(value, pointer);
  for (const [key, member] of Object.entries(value)) {
    const at = `${pointer}/${key}`;
    // The bound rows are values, not spec: a column named `expr` is data.
    if (key === 'values' && pointer.startsWith('/data/')) continue;
    if (typeof member === 'string' && (expressionKeys.has(key) || key.endsWith('Expr'))) {
      try {
        checkExpression(member, at, { compiled: true });
      } catch (error) {
        throw SpillwayError.is(error) ? refused(error.message.replace(/^Refused at \S+: /, ''), at) : error;
      }
    }
    walk(member, at);
  }
}

function checkNode(node: Record<string, unknown>, pointer: string): void {
  if (node.on !== undefined) throw refused('event handlers (`on`) have no place in a static chart.', `${pointer}/on`);
  if (node.url !== undefined) throw refused('a chart loads nothing.', `${pointer}/url`);
  if (node.type === 'sequence' && !boundedSequence(node)) {
    throw refused(`a sequence must be literal numbers that make at most ${maxGeneratedValues} values, or count a dataset's rows.`, pointer);
  }
}

/** Vega-Lite's facet layout counts a dataset: {"stop": {"signal": "length(data(\"facet_domain\"))"}}, as many values as that data has rows. */
const countsRows = (value: unknown): boolean => isJsonObject(value) && typeof value.signal === 'string' && /^length\(data\("\w+"\)\)$/.test(value.signal);

function boundedSequence(node: Record<string, unknown>): boolean {
  const { start, stop, step = 1 } = node;
  if (typeof start !== 'number' || typeof step !== 'number') return false;
  if (countsRows(stop)) return start === 0 && step === 1;
  const count = typeof stop === 'number' ? generatedCount(start, stop, step) : undefined;
  return count !== undefined && count <= maxGeneratedValues;
}
