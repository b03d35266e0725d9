/**
 * Checks inside Vega's own transforms, for counts known only once the data is
 * there: a bin `step` over the data's extent. Installed once in the chart
 * process (render-chart.ts), before any chart runs.
 */
import * as vega from 'vega';
import { SpillwayError } from '../errors.js';
import { maxBins } from './chart-limits.js';

interface BinFunction {
  start: number;
  stop: number;
  step: number;
}

let installed = false;

/** A bin transform whose bins outnumber maxBins fails the chart (CHART_TOO_LARGE) before a scale or axis builds them. */
export function capBins(): void {
  if (installed) return;
  installed = true;
  const transforms = (vega as unknown as { transforms: Record<string, { prototype: Record<string, unknown> } | undefined> }).transforms;
  const prototype = transforms.bin?.prototype;
  const original = prototype?._bins as ((this: unknown, parameters: unknown) => BinFunction) | undefined;
  if (prototype === undefined || original === undefined) throw new Error('vega has no bin transform to guard');
  prototype._bins = function (this: unknown, parameters: unknown): BinFunction {
    const bins = original.call(this, parameters);
    const count = (bins.stop - bins.start) / bins.step;
    if (!(count <= maxBins)) {
      throw new SpillwayError(
        'CHART_TOO_LARGE',
        `A bin would make ${Math.round(count)} bins; a chart may have at most ${maxBins}. Give a larger step or a maxbins.`,
        {
          limit: 'maxbins',
          value: maxBins,
        },
      );
    }
    return bins;
  };
}
