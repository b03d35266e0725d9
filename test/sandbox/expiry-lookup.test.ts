import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { SandboxRoot } from '../../src/sandbox/index.js';
import { tempDir } from '../helpers/temp-dir.js';

async function expiredAtOf(promise: Promise<unknown>): Promise<{ code?: string; expiredAt?: unknown }> {
  try {
    await promise;
    return {};
  } catch (error) {
    const coded = error as { code?: string; details?: { expiredAt?: unknown } };
    return { ...(coded.code === undefined ? {} : { code: coded.code }), expiredAt: coded.details?.expiredAt };
  }
}

test('an injected expiry lookup answers PATH_EXPIRED first (asked with the conversation key); when it fails or knows nothing, the file log does', async (t) => {
  const root = await SandboxRoot.open(path.join(await tempDir(t), 'sandbox'));
  const asked: string[] = [];
  let failing = false;
  root.setExpiryLookup((key, relative) => {
    asked.push(`${key} ${relative}`);
    if (failing) return Promise.reject(new Error('Redis is down (test)'));
    return Promise.resolve(relative === 'results/0001-a.jsonl' ? '2026-11-01T00:00:00.000Z' : undefined);
  });
  const sandbox = root.conversation('c', 'alice');
  await sandbox.ensure();
  await writeFile(path.join(sandbox.dir, '.expired.jsonl'), `${JSON.stringify({ path: 'results/0002-b.jsonl', expiredAt: '2026-10-01T00:00:00.000Z' })}\n`);

  assert.deepEqual(await expiredAtOf(sandbox.openRead('results/0001-a.jsonl')), { code: 'PATH_EXPIRED', expiredAt: '2026-11-01T00:00:00.000Z' });
  assert.deepEqual(await expiredAtOf(sandbox.openRead('results/0002-b.jsonl')), { code: 'PATH_EXPIRED', expiredAt: '2026-10-01T00:00:00.000Z' });
  assert.deepEqual(await expiredAtOf(sandbox.openRead('results/0003-c.jsonl')), { code: 'PATH_NOT_FOUND', expiredAt: undefined });
  assert.deepEqual(asked, ['alice/c results/0001-a.jsonl', 'alice/c results/0002-b.jsonl', 'alice/c results/0003-c.jsonl']);
  failing = true;
  assert.deepEqual(await expiredAtOf(sandbox.openRead('results/0002-b.jsonl')), { code: 'PATH_EXPIRED', expiredAt: '2026-10-01T00:00:00.000Z' });
  assert.deepEqual(await expiredAtOf(sandbox.openRead('results/0001-a.jsonl')), { code: 'PATH_NOT_FOUND', expiredAt: undefined });
});
