import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';

// `spillway serve` should reach its banner quickly: the libraries only some calls need
// load where they are used (file workers, script workers, a PostgreSQL source), never
// through a static import from the CLI's entry. This reads the compiled JavaScript, where
// type-only imports are gone, and follows static imports only (import() is lazy).

/** Libraries that stay off the start path, and where they load instead. */
const lazyPackages: Record<string, string> = {
  exceljs: 'workers/xlsx.ts',
  docx: 'workers/docx.ts',
  pptxgenjs: 'workers/pptx.ts',
  'quickjs-emscripten': 'the script worker (src/script/script-worker.ts)',
  pg: 'open-sql-source.ts, when sql.source is postgres',
  '@duckdb/node-api': 'the DuckDB child process (src/analysis/files-sql-child.ts)',
  vega: 'workers/chart.ts',
  'vega-lite': 'workers/chart.ts',
  '@resvg/resvg-js': 'workers/chart.ts',
  bullmq: 'install-file-jobs.ts and the worker verb, when coordination.redis is set',
  ioredis: 'open-coordinator.ts and install-file-jobs.ts, when coordination.redis is set',
};

/** Static import and re-export specifiers of a compiled module (not import()). */
export function staticImportsOf(source: string): string[] {
  const patterns = [/^\s*(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1] as string));
}

/** The package a bare specifier names ("@scope/name/sub" → "@scope/name"). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** Every package reached by static imports from the entries, with one module that imports it. */
function staticPackages(...entries: string[]): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticImportsOf(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier));
      else if (!specifier.startsWith('node:') && !packages.has(packageOf(specifier))) packages.set(packageOf(specifier), path.relative(packageRoot, file));
    }
  }
  return packages;
}

test('the import reader sees static imports and re-exports, not import() or imports in text', () => {
  const source = [
    "import pg from 'pg';",
    "export { a } from './a.js';",
    "import './side.js';",
    "const x = await import('exceljs');",
    "// import docx from 'docx'",
  ].join('\n');
  assert.deepEqual(staticImportsOf(source).sort(), ['./a.js', './side.js', 'pg']);
});

const cliDir = path.join(packageRoot, 'dist', 'src', 'cli');
const commandModules = (): string[] =>
  readdirSync(path.join(cliDir, 'commands'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => path.join(cliDir, 'commands', name));

test('the CLI entry and its verbs do not load file-format, script or PostgreSQL libraries at start', () => {
  const entry = path.join(cliDir, 'main.js');
  assert.ok(existsSync(entry), `${entry} is built`);
  // The verbs load on use (import() in main.ts), so each verb's own start path is walked too.
  const packages = staticPackages(entry, ...commandModules());
  assert.ok(packages.has('@modelcontextprotocol/sdk'), 'the walk reached the MCP front');
  const eager = Object.keys(lazyPackages)
    .filter((name) => packages.has(name))
    .map((name) => `${name} is imported statically by ${packages.get(name)}; it belongs in ${lazyPackages[name]}`);
  assert.deepEqual(eager, []);
});

test('one verb does not load the others: the entry imports no verb, and `spillway call` loads neither the MCP SDK nor jose', () => {
  const entryImports = staticImportsOf(readFileSync(path.join(cliDir, 'main.js'), 'utf8'));
  assert.deepEqual(
    entryImports.filter((specifier) => specifier.includes('/commands/')),
    [],
  );
  // The SDK's client half loads with the first upstream connection (upstream/client-sdk.ts), jose with the first download link.
  const call = staticPackages(path.join(cliDir, 'commands', 'call.js'));
  assert.deepEqual(
    ['@modelcontextprotocol/sdk', 'jose'].filter((name) => call.has(name)).map((name) => `${name} via ${call.get(name)}`),
    [],
  );
});
