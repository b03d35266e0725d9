// Runs the benchmarks: every compiled bench/**/*.bench.js, or those named by the
// arguments (`npm run bench -- spill export`): a name matches a benchmark whose name
// is that name, or that starts with it followed by a dash or a folder (so "export"
// runs export, not fleet-exports; "fleet" runs fleet and fleet-exports).
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

/** A benchmark's name: its path below bench/ without .bench.js. */
const benchName = (file: string): string => path.relative(here, file).replace(/\.bench\.js$/, '');

const files = find(here)
  // Match against the name below bench/, so a checkout folder named e.g. "exports" does not match every file.
  .filter(
    (file) =>
      filters.length === 0 ||
      filters.some((filter) => benchName(file) === filter || benchName(file).startsWith(`${filter}-`) || benchName(file).startsWith(`${filter}/`)),
  )
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}`);
  process.exit(1);
}
for (const file of files) {
  console.log(`\n## ${benchName(file)}\n`);
  const module = (await import(pathToFileURL(file).href)) as { default?: () => Promise<void> };
  if (typeof module.default !== 'function') throw new Error(`${file} has no default export`);
  await module.default();
}
