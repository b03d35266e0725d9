/**
 * Tool-name patterns as used in config (`github__*`, `*`, `query_sql`):
 * `*` matches any run of characters, everything else matches itself.
 */
export function matchesToolPattern(pattern: string, name: string): boolean {
  const source = pattern.split('*').map(escapeRegExp).join('.*');
  return new RegExp(`^${source}$`, 's').test(name);
}

/** The value of the most specific matching pattern: fewest wildcards, then the longest pattern. */
export function mostSpecificMatch<T>(patterns: Record<string, T>, name: string): T | undefined {
  let best: { pattern: string; value: T } | undefined;
  for (const [pattern, value] of Object.entries(patterns)) {
    if (!matchesToolPattern(pattern, name)) continue;
    if (best === undefined || moreSpecific(pattern, best.pattern)) best = { pattern, value };
  }
  return best?.value;
}

function moreSpecific(a: string, b: string): boolean {
  const wildcards = (p: string) => p.split('*').length - 1;
  if (wildcards(a) !== wildcards(b)) return wildcards(a) < wildcards(b);
  return a.length > b.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
