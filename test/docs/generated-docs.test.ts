import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { defaultConfigFile } from '../../src/config/load-config.js';
import { packageRoot } from '../../src/config/package-root.js';
import { generatedDocs } from '../../scripts/docs/generated-docs.js';
import { builtinToolDefinitions } from '../../src/runtime/builtin-tool-listing.js';
import { argumentRows, firstSentence } from '../../scripts/docs/render-tool-reference.js';

test('the committed docs/tools.md, docs/configuration.md, config/schema.json and config/default.json are what the generator writes', async () => {
  const docs = await generatedDocs();
  assert.deepEqual(docs.map((doc) => path.relative(packageRoot, doc.file)).sort(), [
    'config/default.json',
    'config/schema.json',
    'docs/configuration.md',
    'docs/tools.md',
  ]);
  for (const doc of docs) {
    let committed = '';
    try {
      committed = readFileSync(doc.file, 'utf8');
    } catch {
      assert.fail(`${doc.file} is missing: run \`npm run docs\` and commit it`);
    }
    assert.ok(committed === doc.content, `${path.basename(doc.file)} is out of date: run \`npm run docs\` and commit the result`);
  }
});

test('the tool reference names every built-in tool and every one of its arguments', async () => {
  const [tools] = await generatedDocs();
  const definitions = await builtinToolDefinitions();
  assert.ok(definitions.some((tool) => tool.name === 'query_sql'));
  for (const tool of definitions) {
    assert.ok(tools?.content.includes(`\n## ${tool.name}\n`), `no section for ${tool.name}`);
    assert.ok(tools?.content.includes(tool.description), `${tool.name}: description missing`);
    for (const name of Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {})) {
      assert.ok(tools?.content.includes(`| \`${name}\` |`), `${tool.name}: argument ${name} missing`);
    }
  }
});

test('nested arguments are listed with their paths', () => {
  const rows = argumentRows({
    type: 'object',
    required: ['source'],
    properties: {
      source: { type: 'string', description: 'Where | from' },
      columns: {
        type: 'array',
        items: { anyOf: [{ type: 'string' }, { type: 'object', properties: { name: { type: 'string' }, header: { type: 'string' } } }] },
      },
      sort: {
        anyOf: [
          { type: 'object', properties: { column: { type: 'string' }, direction: { enum: ['asc', 'desc'] } } },
          { type: 'array', items: { type: 'object', properties: { column: { type: 'string' } } } },
        ],
      },
    },
  });
  assert.deepEqual(
    rows.map((row) => [row.name, row.type, row.required]),
    [
      ['source', 'string', true],
      ['columns', '(string or object)[]', false],
      ['columns[].name', 'string', false],
      ['columns[].header', 'string', false],
      ['sort', 'object or object[]', false],
      ['sort.column', 'string', false],
      ['sort.direction', '"asc" | "desc"', false],
      ['sort[].column', 'string', false],
    ],
  );
});

test('the configuration reference names every key of config/default.json with its default', async () => {
  const [, configuration] = await generatedDocs();
  const defaults = JSON.parse(readFileSync(defaultConfigFile, 'utf8')) as Record<string, unknown>;
  const walk = (value: unknown, key: string[]): void => {
    // A map's default (spill.tools) is shown whole on its own row; its keys are names, not documented keys.
    const whole = `| \`${key.join('.')}\` |`;
    const wholeLine = configuration?.content.split('\n').find((candidate) => candidate.startsWith(whole)) ?? '';
    if (key.length > 0 && typeof value === 'object' && value !== null && wholeLine.includes(`\`${JSON.stringify(value)}\``)) return;
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const [name, member] of Object.entries(value)) walk(member, [...key, name]);
      return;
    }
    const row = `| \`${key.join('.')}\` |`;
    assert.ok(configuration?.content.includes(row), `${key.join('.')} is not documented`);
    const line = configuration?.content.split('\n').find((candidate) => candidate.startsWith(row)) ?? '';
    assert.ok(line.includes(`\`${JSON.stringify(value)}\``), `${key.join('.')}: default ${JSON.stringify(value)} not shown`);
  };
  walk(defaults, []);
});

test('a tool summary is its whole first sentence: abbreviations such as "e.g." do not end it', () => {
  assert.equal(firstSentence('Give the user a file (e.g. a spill) as it is. Then more.'), 'Give the user a file (e.g. a spill) as it is.');
  assert.equal(firstSentence('One, i.e. the first, etc. and so on! Two.'), 'One, i.e. the first, etc. and so on!');
  assert.equal(firstSentence('No full stop at all'), 'No full stop at all');
  assert.equal(firstSentence('Ends at version 1.5 here.\nNext.'), 'Ends at version 1.5 here.');
});

test('the tool reference lists list_upstreams, which serve offers with or without upstreams', async () => {
  const definitions = await builtinToolDefinitions();
  assert.ok(definitions.some((tool) => tool.name === 'list_upstreams'));
});
