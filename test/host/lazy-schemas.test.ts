import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { prebuiltToolCheck } from '../../src/host/prebuilt-tool-checks.js';
import { ArgumentValidator, markOwnSchema } from '../../src/host/validate-arguments.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { tempHost } from '../helpers/temp-host.js';

test('a tool schema is compiled on its first call, not at registration; later calls reuse it', () => {
  const problems: string[] = [];
  const validator = new ArgumentValidator((tool, problem) => problems.push(`${tool}: ${problem}`));
  validator.register('broken', { type: 'object', properties: { a: { type: 'no-such-type' } } });
  validator.register('strict', { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
  assert.deepEqual(problems, [], 'nothing is compiled at registration');
  // An uncompilable schema: the tool runs without local validation, and that is told once.
  validator.validate('broken', { a: 1 });
  validator.validate('broken', { a: 2 });
  assert.equal(problems.length, 1);
  assert.match(problems[0] ?? '', /^broken: /);
  validator.validate('strict', { n: 1 });
  assert.throws(
    () => validator.validate('strict', { n: 'x' }),
    (error: Error & { code?: string }) => error.code === 'INVALID_ARGUMENTS' && /n/.test(error.message),
  );
  // A tool registered again gets its new schema.
  validator.register('strict', { type: 'object', properties: { n: { type: 'string' } } });
  validator.validate('strict', { n: 'x' });
});

/** A host whose tool "dialect" has a schema ajv cannot compile, and the log lines it writes. */
async function hostWithDialectTool(t: TestContext) {
  const { logger, lines } = capturedLogger();
  const env = await tempHost({}, { logger });
  t.after(() => env.cleanup());
  env.host.registerTool({
    name: 'dialect',
    description: 'a schema in another dialect',
    inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
    handler: () => ({ value: 'ran' }),
  });
  return { env, lines };
}

test('through a host: a tool whose schema ajv cannot compile still runs, with one warning in the log', async (t) => {
  const { env, lines } = await hostWithDialectTool(t);
  for (let call = 0; call < 2; call += 1) {
    const result = await env.host.execute({ name: 'dialect', arguments: { a: 1 } }, { conversationId: 'c1' });
    assert.equal(result.isError, false, result.text);
  }
  const warnings = lines.filter((line) => line.msg.includes('cannot be compiled'));
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.tool, 'dialect');
});

test('prepare compiles a schema ahead of its first call (a served host does so for query_files); an unknown tool is a no-op', async (t) => {
  const problems: string[] = [];
  const validator = new ArgumentValidator((tool, problem) => problems.push(`${tool}: ${problem}`));
  validator.register('broken', { type: 'object', properties: { a: { type: 'no-such-type' } } });
  validator.prepare('broken');
  assert.equal(problems.length, 1, 'compiled by prepare, before any call');
  validator.validate('broken', { a: 1 });
  validator.prepare('broken');
  assert.equal(problems.length, 1, 'compiled once');
  validator.prepare('unknown');
  validator.register('strict', { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
  validator.prepare('strict');
  assert.throws(
    () => validator.validate('strict', {}),
    (error: Error & { code?: string }) => error.code === 'INVALID_ARGUMENTS',
  );

  const { env, lines } = await hostWithDialectTool(t);
  env.host.prepareTool('dialect');
  assert.equal(lines.filter((line) => line.msg.includes('cannot be compiled')).length, 1, 'the host compiled it before any call');
  const result = await env.host.execute({ name: 'dialect', arguments: { a: 1 } }, { conversationId: 'c1' });
  assert.equal(result.isError, false, result.text);
  assert.equal(lines.filter((line) => line.msg.includes('cannot be compiled')).length, 1);
});

test("spillway's own tool schemas are valid JSON Schema (so they are compiled without ajv's meta-schema check); any other schema is still checked", async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  await startUpstreams(env.host).settled();
  const tools = env.host.listTools();
  assert.ok(tools.length >= 15 && tools.some((tool) => tool.name === 'list_upstreams'), tools.map((tool) => tool.name).join(', '));
  const metaCheck = new Ajv({ strict: false });
  for (const tool of tools) {
    const { $schema: _dialect, ...schema } = tool.inputSchema;
    assert.equal(metaCheck.validateSchema(schema), true, `${tool.name}: ${metaCheck.errorsText(metaCheck.errors)}`);
  }

  // A schema ajv compiles but JSON Schema does not allow (required must be an array): refused when it is not
  // spillway's own, so the tool runs without a local check rather than with a wrong one.
  const problems: string[] = [];
  const validator = new ArgumentValidator((tool, problem) => problems.push(`${tool}: ${problem}`));
  const invalid = { type: 'object' as const, properties: { n: { type: 'integer' } }, required: 'n' };
  validator.register('foreign', invalid);
  validator.validate('foreign', {});
  assert.equal(problems.length, 1, 'the meta-schema check refused it');
  assert.match(problems[0] ?? '', /^foreign: .*required/);
  const own = { type: 'object' as const, properties: { n: { type: 'integer' } }, required: ['n'] };
  markOwnSchema(own);
  validator.register('own', own);
  assert.throws(
    () => validator.validate('own', {}),
    (error: Error & { code?: string }) => error.code === 'INVALID_ARGUMENTS',
  );
  assert.equal(problems.length, 1);
});

test('every builtin tool has an argument check compiled at build time, and it accepts and refuses what ajv compiled now does (property)', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  await startUpstreams(env.host).settled();
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const tools = env.host.listTools();
  for (const tool of tools) {
    const { $schema: _dialect, ...schema } = tool.inputSchema;
    const prebuilt = prebuiltToolCheck(schema);
    assert.ok(prebuilt !== undefined, `${tool.name}: no prebuilt check (is dist/src/host/tool-checks/ stale? run the build)`);
    const compiled = ajv.compile(schema);
    // Objects with the tool's own keys, of any values, and anything at all.
    const keys = Object.keys((schema as { properties?: object }).properties ?? {});
    const argsLike = fc.oneof(
      fc.dictionary(keys.length > 0 ? fc.constantFrom(...keys) : fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(argsLike, (args) => prebuilt(args) === compiled(args)),
      { numRuns: 150 },
    );
  }
});

test('a builtin tool whose arguments fail its prebuilt check is told every problem, as from a compiled check', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const result = await env.host.execute({ name: 'export_table', arguments: { source: 3, format: 'csvx', extra: true } }, { conversationId: 'c1' });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'INVALID_ARGUMENTS');
  assert.match(result.text, /source/);
  assert.match(result.text, /format/);
  assert.match(result.text, /extra/);
});
