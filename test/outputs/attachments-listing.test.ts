// The attachments a conversation offers (resources/list): the files under its outputs/,
// listed through opened folders, never through a symlink that replaced one.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { listAttachments } from '../../src/outputs/attachments.js';
import { tempHost } from '../helpers/temp-host.js';

test('outputs/ and a folder in it are listed; replaced by symlinks, they show nothing of where they lead', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const outside = await mkdtemp(path.join(tmpdir(), 'spillway-outside-'));
  t.after(() => rm(outside, { recursive: true, force: true }));
  await writeFile(path.join(outside, 'payroll-SECRET-NAME.xlsx'), 'x'.repeat(100));
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  const outputs = sandbox.folderPath('outputs');
  await mkdir(path.join(outputs, 'reports'));
  await writeFile(path.join(outputs, 'a.csv'), 'a\n');
  await writeFile(path.join(outputs, 'reports', 'b.csv'), 'b\n');
  await symlink(outside, path.join(outputs, 'linked'));
  assert.deepEqual(
    (await listAttachments(sandbox)).map((attachment) => attachment.path),
    ['outputs/a.csv', 'outputs/reports/b.csv'],
  );
  await rename(outputs, `${outputs}-moved`);
  await symlink(outside, outputs);
  assert.deepEqual(await listAttachments(sandbox), []);
});
