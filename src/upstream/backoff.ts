/**
 * The delay before reconnect attempt `failures` (1 = first retry): doubles from
 * `minMs` up to `maxMs`, with ±20% jitter so several upstreams that fell over
 * together do not all come back in the same instant.
 */
export function reconnectDelay(failures: number, minMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const base = Math.min(maxMs, minMs * 2 ** exponent);
  const jittered = base * (0.8 + 0.4 * random());
  return Math.round(Math.min(maxMs, Math.max(minMs, jittered)));
}
