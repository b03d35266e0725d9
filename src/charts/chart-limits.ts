/**
 * Caps on what one chart may ask Vega to build, checked before rendering.
 * No static chart needs more; each refusal names the cap. The caps a user may
 * want to tune are config keys (charts.maxRows, maxMarks, maxPixels,
 * memoryBytes, timeoutMs); these are not.
 */

/** Bins of one `bin` (its `maxbins`, and what a `step` makes of the data's extent). */
export const maxBins = 1000;

/** Values one generator may make: impute `keyvals`, a literal `sequence`, density steps, quantile probabilities. */
export const maxGeneratedValues = 10_000;

/** Ticks one axis or legend may ask for (`tickCount`). */
export const maxTickCount = 1000;

/** Degree of a polynomial `regression` (`order`). */
export const maxRegressionOrder = 20;

/** Longest side of a chart's PNG, in pixels (besides charts.maxPixels for its area). */
export const maxSidePixels = 32_768;

/**
 * Longest SVG a chart may be, in characters. 20,000 marks (charts.maxMarks) of a few hundred
 * characters each stay well under it; text made by expressions does not (a 300-byte spec that
 * multiplied a string tenfold six times drew a 240 MB SVG).
 */
export const maxSvgChars = 16 * 1024 * 1024;
