import type { FindingCollector } from './findings.js';
import { hasFindings, inspectString, rewriteString } from './screen-string.js';
import type { ScreeningPolicy } from './screening-policy.js';
import type { Screened } from './screen-value.js';

/** 1-based line of each offset (offsets in any order), counting line breaks once. */
function lineFinder(text: string): (offset: number) => number {
  const breaks: number[] = [];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) breaks.push(index);
  return (offset) => {
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((breaks[middle] ?? 0) < offset) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}

/** Screens a text result; findings are placed by line. */
export function screenText(text: string, policy: ScreeningPolicy, collector: FindingCollector): Screened<string> {
  const found = inspectString(text, policy);
  if (!hasFindings(found)) return { model: text, file: text };
  const lineOf = lineFinder(text);
  for (const secret of found.secrets) collector.add({ category: 'secret', kind: secret.kind, line: lineOf(secret.start) });
  const once = new Set<string>();
  for (const [category, matches] of [
    ['injection', found.injections],
    ['invisible', found.invisible],
  ] as const) {
    for (const match of matches) {
      const line = lineOf(match.start);
      if (once.has(`${category} ${match.kind} ${line}`)) continue;
      once.add(`${category} ${match.kind} ${line}`);
      collector.add({ category, kind: match.kind, line });
    }
  }
  return { model: rewriteString(text, found, policy, 'model'), file: rewriteString(text, found, policy, 'file') };
}
