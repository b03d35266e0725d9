/**
 * Vega expressions checked on what Vega will run, not on their text: each one
 * is parsed with Vega's own parser (which decodes `\u0073equence` to
 * `sequence`, as Vega's code generator would), and every function it calls
 * must be on the allow-list below. Used on the model's Vega-Lite spec in the
 * host and on the compiled Vega spec in the chart process.
 */
import { parseExpression } from 'vega-expression';
import { SpillwayError } from '../errors.js';
import { maxGeneratedValues } from './chart-limits.js';

/**
 * Functions a static chart may call: math, strings, dates, formats, colours,
 * statistics without randomness, and the scale helpers Vega-Lite's own output
 * uses. Everything else (sequence, pad, data, indata, modify, setdata,
 * vlSelection*, random, sample*, timeSequence, view/event helpers…) is refused.
 */
const allowedFunctions = new Set(
  [
    // math
    'isNaN isFinite abs acos asin atan atan2 ceil clamp cos exp floor hypot log max min pow round sin sqrt tan',
    // dates
    'now utc datetime date day year month hours minutes seconds milliseconds time timezoneoffset quarter week isoweek dayofyear',
    'utcdate utcday utcyear utcmonth utchours utcminutes utcseconds utcmilliseconds utcquarter utcweek utcisoweek utcdayofyear',
    // types
    'if isArray isBoolean isDate isDefined isNumber isObject isRegExp isString isValid toBoolean toDate toNumber toString',
    // strings and arrays of values already there
    'length parseFloat parseInt upper lower substring split trim truncate indexof lastindexof replace slice join reverse peek span inrange',
    'extent clampRange lerp merge test regexp',
    // formats
    'format utcFormat utcParse utcOffset timeFormat timeParse timeOffset timeUnitSpecifier monthFormat monthAbbrevFormat dayFormat dayAbbrevFormat',
    // colours
    'rgb lab hcl hsl luminance contrast',
    // statistics (no sampling)
    'cumulativeNormal cumulativeLogNormal cumulativeUniform densityNormal densityLogNormal densityUniform quantileNormal quantileLogNormal quantileUniform',
    // scales (Vega-Lite's compiled specs call these)
    'scale invert domain range bandwidth bandspace copy',
  ]
    .join(' ')
    .split(' '),
);

/** Property names that reach JavaScript internals instead of data. */
const refusedProperties = new Set(['__proto__', 'constructor', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);

export interface ExpressionOptions {
  /**
   * Compiled Vega only: Vega-Lite turns an impute `keyvals` range into
   * `sequence(start, stop, step)` with literal numbers; that form is allowed
   * when it makes at most maxGeneratedValues values. Its facet layouts read
   * `data("name")` of a dataset the spec holds (the bound rows, never data
   * of the model's own), allowed with a literal name.
   */
  compiled?: boolean;
}

/** Why an expression is refused, or undefined when Vega may run it. */
export function expressionProblem(text: string, options: ExpressionOptions = {}): string | undefined {
  let ast: unknown;
  try {
    ast = parseExpression(text);
  } catch (error) {
    return `the expression does not parse (${(error as Error).message})`;
  }
  try {
    return nodeProblem(ast, options);
  } catch (error) {
    if (error instanceof RangeError) return 'the expression is nested too deeply';
    throw error;
  }
}

/** Throws CHART_SPEC_INVALID naming the pointer when the expression calls a function outside the allow-list. */
export function checkExpression(text: string, pointer: string, options: ExpressionOptions = {}): void {
  const problem = expressionProblem(text, options);
  if (problem === undefined) return;
  throw new SpillwayError('CHART_SPEC_INVALID', `Refused at ${pointer}: ${problem}.`, { pointer });
}

function nodeProblem(node: unknown, options: ExpressionOptions): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const problem = nodeProblem(item, options);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Record<string, unknown>;
  const own = callProblem(record, options) ?? memberProblem(record);
  if (own !== undefined) return own;
  // A literal's value (a RegExp object for /…/) is not a node; an object property's value is.
  if (record.type === 'Literal') return undefined;
  for (const child of Object.values(record)) {
    const problem = nodeProblem(child, options);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function callProblem(node: Record<string, unknown>, options: ExpressionOptions): string | undefined {
  if (node.type !== 'CallExpression') return undefined;
  const callee = node.callee as Record<string, unknown> | undefined;
  if (callee?.type !== 'Identifier' || typeof callee.name !== 'string') return 'only named functions may be called (Vega refuses method calls)';
  const name = callee.name;
  if (allowedFunctions.has(name)) return undefined;
  if (options.compiled === true && name === 'sequence' && literalSequenceLength(node.arguments) !== undefined) return undefined;
  if (options.compiled === true && name === 'data' && isStringLiterals(node.arguments, 1)) return undefined;
  return `the expression function ${name}() is not allowed in charts (allowed: math, string, date, format and scale functions; refused are those that build unbounded values, reach other data, or change with time or chance)`;
}

function memberProblem(node: Record<string, unknown>): string | undefined {
  if (node.type !== 'MemberExpression') return undefined;
  const property = node.property as Record<string, unknown> | undefined;
  const name = node.computed === true ? property?.value : property?.name;
  return typeof name === 'string' && refusedProperties.has(name) ? `the property ${name} is not allowed in chart expressions` : undefined;
}

/** The values sequence(start, stop[, step]) makes, when every argument is a number literal and they are few enough. */
function literalSequenceLength(args: unknown): number | undefined {
  if (!Array.isArray(args) || args.length < 1 || args.length > 3) return undefined;
  const numbers = args.map((arg) => numberLiteral(arg));
  if (numbers.some((value) => value === undefined)) return undefined;
  const [first = 0, second, third] = numbers as number[];
  const [start, stop] = second === undefined ? [0, first] : [first, second];
  const step = third ?? 1;
  const count = generatedCount(start, stop, step);
  return count !== undefined && count <= maxGeneratedValues ? count : undefined;
}

/** How many values start, start+step, … below stop makes; undefined when that is not finite. */
export function generatedCount(start: number, stop: number, step: number): number | undefined {
  if (![start, stop, step].every(Number.isFinite) || step === 0) return undefined;
  return Math.max(0, Math.ceil((stop - start) / step));
}

function isStringLiterals(args: unknown, count: number): boolean {
  return (
    Array.isArray(args) &&
    args.length === count &&
    args.every((arg) => (arg as Record<string, unknown> | null)?.type === 'Literal' && typeof (arg as Record<string, unknown>).value === 'string')
  );
}

function numberLiteral(node: unknown): number | undefined {
  const record = node as Record<string, unknown> | null;
  if (record?.type === 'Literal' && typeof record.value === 'number') return record.value;
  if (record?.type === 'UnaryExpression' && record.operator === '-') {
    const inner = numberLiteral(record.argument);
    return inner === undefined ? undefined : -inner;
  }
  return undefined;
}
