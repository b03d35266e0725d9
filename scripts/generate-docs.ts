// Writes docs/tools.md (from the tool definitions), and docs/configuration.md,
// config/schema.json and config/default.json (from the configuration schema in
// src/config/schema.ts). `npm run docs` runs it; `--check` only compares and
// exits 1 when a file is out of date.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../src/config/package-root.js';
import { generatedDocs } from './docs/generated-docs.js';

const check = process.argv.includes('--check');
let stale = 0;
for (const doc of await generatedDocs()) {
  const relative = path.relative(packageRoot, doc.file);
  let current: string | undefined;
  try {
    current = readFileSync(doc.file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === doc.content) {
    process.stdout.write(`${relative}: up to date\n`);
  } else if (check) {
    stale += 1;
    process.stderr.write(`${relative}: out of date; run \`npm run docs\` and commit the result\n`);
  } else {
    mkdirSync(path.dirname(doc.file), { recursive: true });
    writeFileSync(doc.file, doc.content);
    process.stdout.write(`${relative}: written\n`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
