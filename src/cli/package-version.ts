import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../config/package-root.js';

/** The version in spillway's own package.json, read when asked (`spillway --version`), so it is never stale. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}
