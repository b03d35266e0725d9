/**
 * Whether a version (e.g. "20.19.0") is inside an npm semver range as packages write
 * them in `engines.node`: `||` alternatives of space-separated comparators (`>=`, `>`,
 * `<=`, `<`, `=`), caret and tilde ranges, x-ranges (`20`, `20.x`, `6.*`, `*`) and
 * hyphen ranges (`1.2 - 2`). Prereleases are not handled (engines do not use them).
 */
export function admits(range: string, version: string): boolean {
  const wanted = parseVersion(version);
  return range.split('||').some((alternative) => comparatorsOf(alternative).every((test) => test(wanted)));
}

type Version = [number, number, number];
type Comparator = (version: Version) => boolean;

function parseVersion(text: string): Version {
  const parts = text.replace(/^v/, '').split('.').map(Number);
  if (parts.length !== 3 || parts.some((part) => !Number.isInteger(part))) throw new Error(`not a version: ${text}`);
  return parts as Version;
}

/** "20.19" → [20, 19, undefined]: the parts given, x/* and missing parts undefined. */
function parsePartial(text: string): (number | undefined)[] {
  const parts = text.replace(/^v/, '').split('.');
  if (parts.length > 3) throw new Error(`not a version range: ${text}`);
  const numbers: (number | undefined)[] = [];
  for (const part of parts) {
    if (part === 'x' || part === 'X' || part === '*' || part === '') break;
    const value = Number(part);
    if (!Number.isInteger(value)) throw new Error(`not a version range: ${text}`);
    numbers.push(value);
  }
  return numbers;
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The lowest version a partial covers, and the first one after it ("20.19" → 20.19.0 and 20.20.0). */
function bounds(partial: (number | undefined)[]): { low: Version; next: Version | undefined } {
  const [major, minor, patch] = partial;
  const low: Version = [major ?? 0, minor ?? 0, patch ?? 0];
  if (major === undefined) return { low, next: undefined };
  if (minor === undefined) return { low, next: [major + 1, 0, 0] };
  if (patch === undefined) return { low, next: [major, minor + 1, 0] };
  return { low, next: [major, minor, patch + 1] };
}

const atLeast =
  (low: Version): Comparator =>
  (version) =>
    compare(version, low) >= 0;
const below =
  (limit: Version | undefined): Comparator =>
  (version) =>
    limit === undefined || compare(version, limit) < 0;

function comparatorsOf(alternative: string): Comparator[] {
  const text = alternative.trim().replace(/([<>=~^]+)\s+/g, '$1');
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
  if (hyphen !== null) return [atLeast(bounds(parsePartial(hyphen[1] as string)).low), below(bounds(parsePartial(hyphen[2] as string)).next)];
  if (text === '') return [];
  return text.split(/\s+/).flatMap((token) => comparator(token));
}

function comparator(token: string): Comparator[] {
  const match = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(token) as RegExpExecArray;
  const operator = match[1] ?? '';
  const partial = parsePartial(match[2] as string);
  const { low, next } = bounds(partial);
  switch (operator) {
    case '>=':
      return [atLeast(low)];
    case '>':
      return partial.length === 3 ? [(version) => compare(version, low) > 0] : [next === undefined ? () => false : atLeast(next)];
    case '<':
      return [below(low)];
    case '<=':
      return partial.length === 3 ? [(version) => compare(version, low) <= 0] : [below(next)];
    case '^': {
      const [major = 0, minor = 0] = partial;
      const limit: Version = major > 0 || partial.length < 2 ? [major + 1, 0, 0] : minor > 0 || partial.length < 3 ? [0, minor + 1, 0] : [0, 0, low[2] + 1];
      return [atLeast(low), below(limit)];
    }
    case '~':
      return [atLeast(low), below(partial.length < 2 ? [low[0] + 1, 0, 0] : [low[0], low[1] + 1, 0])];
    default:
      return [atLeast(low), below(next)];
  }
}
