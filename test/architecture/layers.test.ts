import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';

/**
 * The layers of src/, lowest first. A folder may import its own layer's
 * shared foundations and anything in a lower layer, never a higher one:
 *
 * - foundation: errors.ts, util/, log/, config/ (config may use util/ and errors.ts)
 * - sandbox/: paths and files of one conversation
 * - screening/: secret, injection and invisible-Unicode rules over results (pure functions)
 * - spill/: the spill rules (uses sandbox/ and screening/)
 * - policy/: allow/deny/ask and approval prompts (uses sandbox/ to keep a too-large approval as a file)
 * - host/: the registry and the pipeline of every call; it offers hooks
 *   (onAfterSpill, onClose, health sources, events) that higher layers fill
 * - capabilities: tools/, retention/, upstream/, watch/, mcp/, outputs/, sql/
 *   (and the engines beside them) register with a host; they may use the host
 * - runtime/: assembles a host with its tools and services (createHost, startRuntime)
 * - cli/, demo/: entry points
 *
 * Below, each checked folder lists what it may import. Folders above the host
 * are not checked against each other here; only that nothing below runtime/
 * reaches up into runtime/ or cli/.
 */
const allowed: Record<string, readonly string[]> = {
  'errors.ts': [],
  util: ['errors.ts'],
  log: [],
  config: ['errors.ts', 'util'],
  sandbox: ['errors.ts', 'util'],
  screening: ['errors.ts', 'util', 'config'],
  spill: ['errors.ts', 'util', 'log', 'sandbox', 'screening'],
  policy: ['errors.ts', 'util', 'log', 'config', 'sandbox'],
  coordination: ['errors.ts', 'util', 'log', 'config'],
  host: ['errors.ts', 'util', 'log', 'config', 'sandbox', 'spill', 'policy', 'screening'],
};
const entryPoints = new Set(['runtime', 'cli', 'demo', 'index.ts']);

const srcRoot = path.join(packageRoot, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** The top-level entry of src/ a file belongs to ("host", "errors.ts", ...). */
function unitOf(file: string): string {
  return path.relative(srcRoot, file).split(path.sep)[0] ?? '';
}

/** Every relative module a file imports (static, type-only, re-exports and dynamic import()). */
export function importsOf(source: string): string[] {
  const specifiers = new Set<string>();
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) specifiers.add(match[1] ?? '');
  return [...specifiers].filter((specifier) => specifier.startsWith('.'));
}

/** "file imports unit" for every import that leaves the file's own unit. */
function crossings(): { file: string; from: string; to: string; specifier: string }[] {
  return sourceFiles(srcRoot).flatMap((file) => {
    const from = unitOf(file);
    return importsOf(readFileSync(file, 'utf8'))
      .map((specifier) => {
        const target = path.resolve(path.dirname(file), specifier);
        const to = path.relative(srcRoot, target).startsWith('..') ? '(outside src)' : unitOf(target.replace(/\.js$/, '.ts'));
        return { file: path.relative(packageRoot, file), from, to, specifier };
      })
      .filter((edge) => edge.to !== edge.from);
  });
}

test('the import scanner sees static, type-only, re-export, side-effect and dynamic imports', () => {
  const source = [
    "import { a } from '../tools/a.js';",
    "import type {\n  B,\n} from '../retention/b.js';",
    "export { c } from './c.js';",
    "import '../mcp/side-effect.js';",
    "const d = await import('../watch/d.js');",
    "import { e } from 'node:fs';",
  ].join('\n');
  assert.deepEqual(importsOf(source).sort(), ['../mcp/side-effect.js', '../retention/b.js', '../tools/a.js', '../watch/d.js', './c.js']);
});

test('the host and the layers below it import nothing from a higher layer', () => {
  const edges = crossings();
  assert.ok(
    edges.some((edge) => edge.from === 'host'),
    'the scan found the host folder and its imports',
  );
  const violations = edges
    .filter((edge) => allowed[edge.from] !== undefined && !allowed[edge.from]?.includes(edge.to))
    .map((edge) => `${edge.file} imports ${edge.specifier} (${edge.to}); ${edge.from}/ may import only: ${allowed[edge.from]?.join(', ') || 'nothing in src'}`);
  assert.deepEqual(violations, []);
});

test('only entry points import runtime/ and cli/', () => {
  const violations = crossings()
    .filter((edge) => (edge.to === 'runtime' || edge.to === 'cli') && !entryPoints.has(edge.from))
    .map((edge) => `${edge.file} imports ${edge.specifier}`);
  assert.deepEqual(violations, []);
});

test('every file under src/host/ is scanned, and none reaches tools, retention, mcp, runtime, cli, upstream or watch', () => {
  const hostFiles = sourceFiles(path.join(srcRoot, 'host'));
  assert.ok(hostFiles.length >= 4, `found ${hostFiles.length} files under src/host`);
  const higher = ['tools', 'retention', 'mcp', 'runtime', 'cli', 'upstream', 'watch'];
  const reached = crossings().filter((edge) => edge.from === 'host' && higher.includes(edge.to));
  assert.deepEqual(reached, []);
});

/** Every import cycle among src/ files (static and type-only imports alike), each as a path of files. */
function importCycles(): string[] {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(srcRoot)) {
    graph.set(
      file,
      importsOf(readFileSync(file, 'utf8')).map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts')),
    );
  }
  const onPath = new Set<string>();
  const done = new Set<string>();
  const cycles: string[] = [];
  const visit = (file: string, trail: string[]): void => {
    onPath.add(file);
    trail.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (onPath.has(target))
        cycles.push(
          trail
            .slice(trail.indexOf(target))
            .map((f) => path.relative(srcRoot, f))
            .join(' -> '),
        );
      else if (!done.has(target)) visit(target, trail);
    }
    trail.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file, []);
  return cycles;
}

test('no two modules of src/ import each other, directly or round a longer loop', () => {
  assert.ok(sourceFiles(srcRoot).length > 100, 'the scan found the source files');
  assert.deepEqual(importCycles(), []);
});

test('no file in src/ or workers/ is over 400 lines', () => {
  const long = [...sourceFiles(srcRoot), ...sourceFiles(path.join(packageRoot, 'workers'))]
    .map((file) => ({ file: path.relative(packageRoot, file), lines: readFileSync(file, 'utf8').split('\n').length }))
    .filter((entry) => entry.lines > 400);
  assert.deepEqual(long, []);
});
