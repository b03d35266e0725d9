import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ToolContext } from '../../src/host/tool.js';
import { silentLogger } from '../../src/log/logger.js';
import { scriptListFiles } from '../../src/tools/script/script-list-files.js';
import { ScriptBridge } from '../../src/script/script-bridge.js';
import { limitsFromConfig } from '../../src/script/script-limits.js';
import { tempHost } from '../helpers/temp-host.js';
import { runScript, scriptResult, snapshotTree } from './helpers.js';

const secret = 'OUTSIDE-SECRET-PROPERTY';

/** Path segments that try every way out: traversal, absolute roots, encodings, links planted inside. */
const segment = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '',
    '...',
    '%2e%2e',
    '..%2f',
    '~',
    'C:',
    '\\..',
    '\u0000',
    'results',
    'args',
    'outputs',
    'scripts',
    'errors',
    'other',
    'c1',
    'link-out',
    'link-other',
    'etc',
    'passwd',
  ),
  fc.string({ minLength: 1, maxLength: 6 }),
);
const scriptPath = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/')),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
  fc
    .tuple(fc.constantFrom('results', 'args', 'outputs', 'scripts'), fc.array(segment, { minLength: 1, maxLength: 4 }))
    .map(([top, parts]) => [top, ...parts].join('/')),
);

async function plantedHost() {
  const env = await tempHost({
    script: {
      timeoutMs: 30000,
      memoryBytes: 64 * 1024 * 1024,
      stackBytes: 262144,
      maxReadBytes: 64 * 1024 * 1024,
      maxWriteBytes: 8 * 1024 * 1024,
      maxOutputChars: 1_000_000,
    },
  });
  const conversation = path.join(env.host.sandbox.conversation('c1').dir);
  await mkdir(path.join(env.host.sandbox.conversation('other').dir, 'results'), { recursive: true });
  await writeFile(path.join(env.host.sandbox.conversation('other').dir, 'results', 'secret.txt'), secret);
  await writeFile(path.join(env.dir, 'outside.txt'), secret);
  for (const folder of ['results', 'args', 'outputs', 'scripts']) await mkdir(path.join(conversation, folder), { recursive: true });
  await writeFile(path.join(conversation, 'results', 'inside.txt'), 'inside');
  // Links that lead out, placed where random paths will find them.
  for (const folder of ['results', 'args', 'outputs']) {
    await symlink(path.join(env.dir, 'outside.txt'), path.join(conversation, folder, 'link-out'));
    await symlink(path.join(env.host.sandbox.conversation('other').dir), path.join(conversation, folder, 'link-other'));
  }
  return { env, conversation };
}

test('random relative paths given to the script API never resolve outside the conversation (bridge, many paths)', async (t) => {
  const { env, conversation } = await plantedHost();
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  const context = { sandbox, config: env.config, logger: silentLogger() } as unknown as ToolContext;
  const before = await snapshotTree(env.dir, [conversation, path.join(env.dir, 'data')]);
  await fc.assert(
    fc.asyncProperty(scriptPath, async (input) => {
      const bridge = new ScriptBridge({ sandbox, limits: limitsFromConfig(env.config), listFiles: scriptListFiles(context) });
      const read = await bridge.handle({ id: 1, op: 'read', path: input });
      if (read.reply.ok && read.reply.op === 'read') {
        assert.notEqual(Buffer.from(read.reply.data).toString('utf8'), secret, `read ${JSON.stringify(input)} reached outside`);
      }
      const rows = await bridge.handle({ id: 2, op: 'rows', path: input, offset: 0, limit: 10 });
      if (rows.reply.ok && rows.reply.op === 'rows') assert.doesNotMatch(Buffer.from(rows.reply.slice.data).toString('utf8'), new RegExp(secret));
      const list = await bridge.handle({ id: 3, op: 'list', dir: input });
      if (list.reply.ok && list.reply.op === 'list') assert.doesNotMatch(list.reply.json, /secret|outside/);
      const write = await bridge.handle({ id: 4, op: 'write', path: input, data: new TextEncoder().encode('x') });
      if (write.reply.ok && write.reply.op === 'write') {
        const absolute = path.resolve(conversation, write.reply.relative);
        assert.ok(absolute.startsWith(conversation + path.sep), `write ${JSON.stringify(input)} landed at ${absolute}`);
        assert.match(write.reply.relative, /^(args|scripts|outputs)\//);
      }
    }),
    { numRuns: 400 },
  );
  assert.deepEqual(await snapshotTree(env.dir, [conversation, path.join(env.dir, 'data')]), before);
});

test('random relative paths given to a running script never resolve outside the conversation (end to end)', async (t) => {
  const { env, conversation } = await plantedHost();
  t.after(() => env.cleanup());
  const before = await snapshotTree(env.dir, [conversation, path.join(env.dir, 'data')]);
  const code = [
    'const seen = [];',
    'for (const path of args.paths) {',
    '  let text = null, wrote = null;',
    '  try { text = readText(path); } catch (error) { if (error.name !== "SpillwayError") throw error; }',
    '  try { wrote = writeText(path, "x"); } catch (error) { if (error.name !== "SpillwayError") throw error; }',
    '  seen.push({ path, text, wrote });',
    '}',
    'return seen;',
  ].join('\n');
  await fc.assert(
    fc.asyncProperty(fc.array(scriptPath, { minLength: 1, maxLength: 40 }), async (paths) => {
      const result = await runScript(env.host, code, { args: { paths } });
      const seen = scriptResult(result) as { path: string; text: string | null; wrote: string | null }[];
      assert.equal(seen.length, paths.length);
      for (const entry of seen) {
        assert.notEqual(entry.text, secret, `readText(${JSON.stringify(entry.path)}) reached outside`);
        if (entry.wrote !== null) assert.ok(path.resolve(conversation, entry.wrote).startsWith(conversation + path.sep));
      }
    }),
    { numRuns: 15 },
  );
  assert.deepEqual(await snapshotTree(env.dir, [conversation, path.join(env.dir, 'data')]), before);
});
