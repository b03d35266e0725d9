import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, whether running from src/ (tsx) or dist/src/. */
export const packageRoot: string = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'config', 'schema.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`spillway: cannot find the package root above ${start}`);
    dir = parent;
  }
}
