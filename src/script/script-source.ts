/**
 * How a script's text becomes a function in QuickJS. The body is wrapped in an
 * async function so that `return` hands back the result and `await` works
 * (every host function is synchronous, so awaiting them is harmless). The
 * header shares line 1 with the script, so line numbers stay exact; columns on
 * line 1 are corrected by {@link wrapperHeader}'s length when errors are shown.
 */
export const wrapperHeader = '(async function () {';

export function wrapScript(source: string): string {
  // A leading "#!" line would be a syntax error inside a function body.
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  return `${wrapperHeader}${body}\n})`;
}
