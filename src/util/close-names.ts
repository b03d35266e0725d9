/** Up to `limit` names closest to `wanted` (edit distance, with substring matches first), for "did you mean" hints. */
export function closeNames(wanted: string, names: Iterable<string>, limit = 5): string[] {
  const lower = wanted.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const candidate = name.toLowerCase();
    const contains = candidate.includes(lower) || lower.includes(candidate);
    const distance = editDistance(lower, candidate);
    if (contains || distance <= Math.max(2, Math.floor(wanted.length / 3))) scored.push({ name, score: contains ? distance - 100 : distance });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((entry) => entry.name);
}

function editDistance(a: string, b: string): number {
  if (a.length > 200 || b.length > 200) return Math.abs(a.length - b.length) + 100;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
