import { SpillwayError } from '../errors.js';

const units: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };

/** Milliseconds in one day: retention.days is counted in these. */
export const dayMs = units.d as number;

/**
 * Parses an age such as "7d", "36h" or "90m" (`spillway cleanup --older-than`).
 * A bare number is refused: "7" could mean days or hours, and a sweep that
 * guesses wrong deletes the wrong files.
 */
export function parseDuration(input: string): number {
  const match = /^(\d+(?:\.\d+)?)([dhm])$/.exec(input.trim());
  const amount = match === null ? Number.NaN : Number(match[1]);
  if (match === null || !Number.isFinite(amount)) {
    throw new SpillwayError('INVALID_ARGUMENTS', `"${input}" is not an age. Write a number followed by d (days), h (hours) or m (minutes), e.g. 7d or 36h.`, {
      value: input,
    });
  }
  const ms = amount * (units[match[2] as string] as number);
  if (ms <= 0) {
    throw new SpillwayError('INVALID_ARGUMENTS', `An age of ${input} would delete every file; give an age greater than zero, e.g. 7d.`, { value: input });
  }
  return ms;
}
