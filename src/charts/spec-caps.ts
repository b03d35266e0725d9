/**
 * The numbers in a Vega-Lite spec that decide how much Vega builds: sizes,
 * bins, generated key values, density steps, tick counts. Each member of a
 * spec object passes through capProblem; a refusal names the cap.
 */
import { SpillwayError } from '../errors.js';
import { isJsonObject } from '../util/is-json-object.js';
import { generatedCount } from './chart-expressions.js';
import { maxBins, maxGeneratedValues, maxRegressionOrder, maxSidePixels, maxTickCount } from './chart-limits.js';

export interface SizeLimits {
  /** charts.maxPixels: area of the PNG. */
  maxPixels: number;
  /** charts.scale: PNG pixels per SVG unit. */
  scale: number;
}

const sizeKeys = new Set(['width', 'height', 'continuousWidth', 'continuousHeight', 'discreteWidth', 'discreteHeight']);

function invalid(message: string, pointer: string): SpillwayError {
  return new SpillwayError('CHART_SPEC_INVALID', `Refused at ${pointer}: ${message}`, { pointer });
}

function tooLarge(message: string, pointer: string, limit: string, value: number): SpillwayError {
  return new SpillwayError('CHART_TOO_LARGE', `Refused at ${pointer}: ${message}`, { pointer, limit, value });
}

const isNumber = (value: unknown): value is number => typeof value === 'number';

/** Throws when one member of a spec object asks Vega for more than the caps allow. */
export function checkCaps(owner: Record<string, unknown>, key: string, member: unknown, at: string, limits: SizeLimits): void {
  if (sizeKeys.has(key) || key === 'padding') checkSize(key, member, at, limits);
  if (key === 'view' && isJsonObject(member) && member.step !== undefined) checkSize('step', member.step, `${at}/step`, limits);
  if (key === 'bin' && isJsonObject(member)) checkBin(member, at);
  if (key === 'timeUnit' && isJsonObject(member)) checkTimeUnit(member, at);
  if (key === 'keyvals') checkKeyvals(member, at);
  if (key === 'bins' && isJsonObject(member)) checkBinsObject(member, at);
  if ((key === 'steps' || key === 'minsteps' || key === 'maxsteps') && isNumber(member) && !(member >= 1 && member <= maxGeneratedValues)) {
    throw tooLarge(`${key} must be between 1 and ${maxGeneratedValues}.`, at, key, maxGeneratedValues);
  }
  if (key === 'tickCount' && isNumber(member) && !(member <= maxTickCount)) {
    throw tooLarge(`tickCount may be at most ${maxTickCount}.`, at, 'tickCount', maxTickCount);
  }
  if (key === 'tickCount' && isJsonObject(member) && member.step !== undefined && !(isNumber(member.step) && member.step >= 1)) {
    throw invalid('a tick interval step must be a number of at least 1.', `${at}/step`);
  }
  if (key === 'quantile' && owner.step !== undefined && !(isNumber(owner.step) && owner.step >= 1 / maxGeneratedValues && owner.step < 1)) {
    throw tooLarge(
      `a quantile step must be between ${1 / maxGeneratedValues} and 1 (at most ${maxGeneratedValues} quantiles).`,
      at,
      'step',
      1 / maxGeneratedValues,
    );
  }
  if (key === 'regression' && owner.order !== undefined && !(isNumber(owner.order) && owner.order >= 0 && owner.order <= maxRegressionOrder)) {
    throw tooLarge(`a regression order may be at most ${maxRegressionOrder}.`, at, 'order', maxRegressionOrder);
  }
}

/** Widths, heights, steps and padding, in SVG units: one side at most maxSidePixels, a width × height at most charts.maxPixels, at charts.scale. */
function checkSize(key: string, member: unknown, at: string, limits: SizeLimits): void {
  if (member === 'container') throw invalid(`a static chart has no container to fit; give ${key} as a number.`, at);
  const values = isNumber(member) ? [member] : isJsonObject(member) ? Object.values(member).filter(isNumber) : [];
  const maxSide = maxSidePixels / limits.scale;
  for (const value of values) {
    if (!(value >= 0 && value <= maxSide)) {
      throw tooLarge(
        `${key} ${value} is larger than a chart may be (at most ${maxSide} units a side: ${maxSidePixels} pixels at charts.scale ${limits.scale}).`,
        at,
        key,
        maxSide,
      );
    }
  }
}

/** A width and a height given side by side (a view, a cell of config.view) multiply to the PNG's area. */
export function checkArea(owner: Record<string, unknown>, at: string, limits: SizeLimits): void {
  for (const [w, h] of [
    ['width', 'height'],
    ['continuousWidth', 'continuousHeight'],
    ['discreteWidth', 'discreteHeight'],
  ] as const) {
    const width = owner[w];
    const height = owner[h];
    if (!isNumber(width) || !isNumber(height)) continue;
    const pixels = Math.ceil(width * limits.scale) * Math.ceil(height * limits.scale);
    if (pixels > limits.maxPixels) {
      throw tooLarge(
        `a ${width}×${height} chart is ${pixels} pixels at charts.scale ${limits.scale}; charts.maxPixels allows ${limits.maxPixels}. Make it smaller.`,
        `${at}/${w}`,
        'charts.maxPixels',
        limits.maxPixels,
      );
    }
  }
}

function checkBin(bin: Record<string, unknown>, at: string): void {
  const { maxbins, base, step, steps, minstep, extent } = bin;
  if (maxbins !== undefined && !(isNumber(maxbins) && maxbins >= 1 && maxbins <= maxBins)) {
    throw tooLarge(`maxbins must be between 1 and ${maxBins}.`, `${at}/maxbins`, 'maxbins', maxBins);
  }
  if (base !== undefined && !(isNumber(base) && base >= 2 && base <= 1000)) throw invalid('a bin base must be a number from 2 to 1000.', `${at}/base`);
  if (step !== undefined && !(isNumber(step) && step > 0 && Number.isFinite(step))) throw invalid('a bin step must be a positive number.', `${at}/step`);
  if (minstep !== undefined && !(isNumber(minstep) && minstep >= 0)) throw invalid('a bin minstep must be a number of at least 0.', `${at}/minstep`);
  if (steps !== undefined && !(Array.isArray(steps) && steps.every((value) => isNumber(value) && value > 0 && Number.isFinite(value)))) {
    throw invalid('bin steps must be positive numbers.', `${at}/steps`);
  }
  if (isNumber(step) && Array.isArray(extent) && isNumber(extent[0]) && isNumber(extent[1])) {
    const count = generatedCount(extent[0], extent[1], step);
    if (count === undefined || count > maxBins) throw tooLarge(`this step makes more than ${maxBins} bins over the extent.`, `${at}/step`, 'bins', maxBins);
  }
}

function checkTimeUnit(unit: Record<string, unknown>, at: string): void {
  if (unit.maxbins !== undefined && !(isNumber(unit.maxbins) && unit.maxbins >= 1 && unit.maxbins <= maxBins)) {
    throw tooLarge(`maxbins must be between 1 and ${maxBins}.`, `${at}/maxbins`, 'maxbins', maxBins);
  }
  if (unit.step !== undefined && !(isNumber(unit.step) && Number.isInteger(unit.step) && unit.step >= 1)) {
    throw invalid('a time unit step must be a whole number of at least 1.', `${at}/step`);
  }
}

/** impute keyvals: an explicit array or a {start, stop, step} range, at most maxGeneratedValues values. */
function checkKeyvals(member: unknown, at: string): void {
  if (Array.isArray(member)) {
    if (member.length > maxGeneratedValues) throw tooLarge(`keyvals may list at most ${maxGeneratedValues} values.`, at, 'keyvals', maxGeneratedValues);
    return;
  }
  if (!isJsonObject(member)) return;
  const { start, stop, step } = member;
  const count = isNumber(start) && isNumber(stop) && (step === undefined || isNumber(step)) ? generatedCount(start, stop, step ?? 1) : undefined;
  if (count === undefined || count > maxGeneratedValues) {
    throw tooLarge(
      `a keyvals range {start, stop, step} must be numbers that make at most ${maxGeneratedValues} values ((stop - start) / step).`,
      at,
      'keyvals',
      maxGeneratedValues,
    );
  }
}

/** A scale's bins as {start, stop, step}: at most maxBins boundaries. */
function checkBinsObject(member: Record<string, unknown>, at: string): void {
  const { start, stop, step } = member;
  if (start === undefined && stop === undefined && step === undefined) return;
  const count = isNumber(start) && isNumber(stop) && isNumber(step) ? generatedCount(start, stop, step) : undefined;
  if (count === undefined || count > maxBins) {
    throw tooLarge(`scale bins {start, stop, step} must be numbers that make at most ${maxBins} bins.`, at, 'bins', maxBins);
  }
}
