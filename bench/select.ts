// Which benchmark scopes a `npm run bench -- NAME ...` runs. A scope is one file,
// bench/NAME.bench.ts; NAME must be a scope's exact name. Kept pure so a test holds it.

/** A scope's name: the file's base name without `.bench.js` / `.bench.ts`; undefined for other files. */
export function scopeName(fileName: string): string | undefined {
  const match = /^(?:.*[/\\])?([^/\\]+)\.bench\.[jt]s$/.exec(fileName);
  return match?.[1];
}

export type Selection = { ok: true; scopes: string[] } | { ok: false; message: string };

/**
 * The scopes to run, in name order: every scope when no name is given, else exactly
 * the named ones ("spill" runs spill, never spill-checks). An unknown name is an
 * error whose message lists the scopes there are.
 */
export function selectScopes(available: readonly string[], names: readonly string[]): Selection {
  const scopes = [...new Set(available)].sort();
  if (names.length === 0) return { ok: true, scopes };
  const unknown = names.filter((name) => !scopes.includes(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `no benchmark scope named ${unknown.map((name) => `"${name}"`).join(', ')}; the scopes are: ${scopes.join(', ')} (npm run bench -- NAME runs exactly one; no NAME runs them all)`,
    };
  }
  return { ok: true, scopes: scopes.filter((scope) => names.includes(scope)) };
}
