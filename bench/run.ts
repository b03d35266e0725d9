// Runs the benchmarks: every compiled bench/**/*.bench.js, or those whose path
// contains one of the arguments (`npm run bench -- spill export`).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);

function find(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return find(full);
    return name.endsWith('.bench.js') ? [full] : [];
  });
}

const files = find(here)
  // Match against the path below bench/, so a checkout folder named e.g. "exports" does not match every file.
  .filter((file) => filters.length === 0 || filters.some((filter) => path.relative(here, file).includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}`);
  process.exit(1);
}
for (const file of files) {
  console.log(`\n## ${path.relative(here, file).replace(/\.bench\.js$/, '')}\n`);
  const module = (await import(pathToFileURL(file).href)) as { default?: () => Promise<void> };
  if (typeof module.default !== 'function') throw new Error(`${file} has no default export`);
  await module.default();
}
