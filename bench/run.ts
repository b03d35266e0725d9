// Runs the benchmarks: every scope (bench/NAME.bench.ts, compiled to dist/bench/NAME.bench.js),
// or exactly those named by the arguments (`npm run bench -- spill export` runs spill and export,
// not spill-checks). An unknown name exits non-zero and lists the scopes (bench/select.ts).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { scopeName, selectScopes } from './select.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const available = readdirSync(here).flatMap((name) => {
  if (!name.endsWith('.bench.js')) return [];
  const scope = scopeName(name);
  return scope === undefined ? [] : [scope];
});
const selection = selectScopes(available, process.argv.slice(2));
if (!selection.ok) {
  console.error(selection.message);
  process.exit(1);
}
for (const scope of selection.scopes) {
  console.log(`\n## ${scope}\n`);
  const file = path.join(here, `${scope}.bench.js`);
  const module = (await import(pathToFileURL(file).href)) as { default?: () => Promise<void> };
  if (typeof module.default !== 'function') throw new Error(`${file} has no default export`);
  await module.default();
}
