import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ToolContext } from '../../src/host/tool.js';
import { silentLogger } from '../../src/log/logger.js';
import { rowsToGuestJson } from '../../src/script/rows-to-guest.js';
import { scriptListFiles } from '../../src/tools/script/script-list-files.js';
import { ScriptBridge } from '../../src/script/script-bridge.js';
import { limitsFromConfig } from '../../src/script/script-limits.js';
import { tempHost } from '../helpers/temp-host.js';

const row = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 4 })
  .map((value) => ({ ...value }));
/** What goes between rows: newlines, CRLF, blank and whitespace-only lines. */
const separator = fc.constantFrom('\n', '\r\n', '\n\n', '\n  \n', '\n\t\r\n');

test('readRows pages cut a JSONL file exactly at row boundaries, whatever the blank lines and page sizes', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  await mkdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs'), { recursive: true });
  const context = { sandbox, config: env.config, logger: silentLogger() } as unknown as ToolContext;
  let fileNumber = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(row, separator), { maxLength: 60 }),
      fc.boolean(),
      fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 0, max: 70 }),
      async (entries, trailingNewline, pageSizes, offset) => {
        const rows = entries.map(([value]) => value);
        let text = entries.map(([value, gap]) => JSON.stringify(value) + gap).join('');
        if (!trailingNewline) text = text.replace(/[\r\n\t ]+$/, '');
        const relative = `outputs/t${(fileNumber += 1)}.jsonl`;
        await writeFile(path.join(env.host.sandbox.conversation('c1').dir, relative), text);
        const bridge = new ScriptBridge({ sandbox, limits: limitsFromConfig(env.config), listFiles: scriptListFiles(context) });
        const page = async (from: number, limit: number | undefined): Promise<unknown[]> => {
          const { reply } = await bridge.handle({ id: 1, op: 'rows', path: relative, offset: from, limit });
          assert.ok(reply.ok && reply.op === 'rows', JSON.stringify(reply));
          return JSON.parse(rowsToGuestJson(reply.slice, reply.relative, from, limit)) as unknown[];
        };
        // Pages walked forward (through the run's checkpoints) add up to the whole table.
        const walked: unknown[] = [];
        let at = 0;
        for (let index = 0; at <= rows.length; index += 1) {
          const size = pageSizes[index % pageSizes.length] as number;
          const got = await page(at, size);
          assert.deepEqual(got, rows.slice(at, at + size));
          walked.push(...got);
          if (got.length === 0) break;
          at += size;
        }
        assert.deepEqual(walked, rows);
        // A jump backwards or to any offset cuts at the same places.
        assert.deepEqual(await page(offset, pageSizes[0]), rows.slice(offset, offset + (pageSizes[0] as number)));
        assert.deepEqual(await page(offset, undefined), rows.slice(offset));
      },
    ),
    { numRuns: 150 },
  );
});
