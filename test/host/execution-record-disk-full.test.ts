import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ExecutionRecordStore, type ExecutionRecord } from '../../src/host/execution-record.js';
import { nodeRecordFileSystem, type RecordEpisode, type RecordFileSystem } from '../../src/host/record-file.js';
import { tempDir } from '../helpers/temp-dir.js';

function record(n: number): ExecutionRecord {
  return { callId: `call_${n}`, conversationId: 'c1', tool: 'echo', arguments: { n }, startedAt: '2026-12-01T00:00:00.000Z', durationMs: 1, outcome: 'ok' };
}

function parseLines(text: string): { callId: string }[] {
  assert.ok(text === '' || text.endsWith('\n'), 'the file ends with a newline');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { callId: string });
}

/** A disk that fills: while `full`, a write takes `partial` bytes (a torn line) then throws ENOSPC. */
function fillableDisk() {
  const state = { full: false, partial: 7, truncates: 0 };
  const fs: RecordFileSystem = {
    write(fd, buffer, offset, length) {
      if (!state.full) return nodeRecordFileSystem.write(fd, buffer, offset, length);
      if (state.partial > 0 && offset === 0) return nodeRecordFileSystem.write(fd, buffer, offset, Math.min(state.partial, length));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    },
    truncate(fd, length) {
      state.truncates += 1;
      nodeRecordFileSystem.truncate(fd, length);
    },
  };
  return { state, fs };
}

test('a torn last line is cut back on reopen, so the next record starts on a line of its own', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'data', 'records.jsonl');
  await mkdir(path.dirname(file));
  await writeFile(file, `${JSON.stringify(record(1))}\n{"callId":"call_2","conv`);
  const store = new ExecutionRecordStore(file, 1000);
  store.append(record(3));
  await store.close();
  assert.deepEqual(
    parseLines(await readFile(file, 'utf8')).map((line) => line.callId),
    ['call_1', 'call_3'],
  );
  assert.equal(store.health().repairedBytes, '{"callId":"call_2","conv'.length);
});

test('records dropped on a full disk are counted, reported once per episode, and resume whole when space returns', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'records.jsonl');
  const disk = fillableDisk();
  const episodes: RecordEpisode[] = [];
  const store = new ExecutionRecordStore(file, 1000, { fs: disk.fs, onEpisode: (episode) => episodes.push(episode) });
  store.append(record(1));
  disk.state.full = true;
  for (let n = 2; n <= 5; n += 1) store.append(record(n));
  assert.deepEqual(store.health(), { written: 1, dropped: 4, failing: true, lastError: 'ENOSPC', repairedBytes: 0 });
  assert.deepEqual(
    episodes.map((episode) => episode.kind),
    ['start'],
  );
  // The half-written line was cut back at once: the file holds whole records only.
  assert.ok(disk.state.truncates >= 1);
  assert.deepEqual(
    parseLines(await readFile(file, 'utf8')).map((line) => line.callId),
    ['call_1'],
  );

  disk.state.full = false;
  store.append(record(6));
  store.append(record(7));
  assert.deepEqual(store.health(), { written: 3, dropped: 4, failing: false, repairedBytes: 0 });
  assert.deepEqual(
    episodes.map((episode) => [episode.kind, episode.dropped]),
    [
      ['start', undefined],
      ['end', 4],
    ],
  );
  await store.close();
  assert.deepEqual(
    parseLines(await readFile(file, 'utf8')).map((line) => line.callId),
    ['call_1', 'call_6', 'call_7'],
  );
});

test('a line torn where it cannot even be cut back is repaired when the file is reopened', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'records.jsonl');
  const disk = fillableDisk();
  let truncateFails = false;
  const fs: RecordFileSystem = {
    write: disk.fs.write,
    truncate(fd, length) {
      if (truncateFails) throw Object.assign(new Error('EIO'), { code: 'EIO' });
      disk.fs.truncate(fd, length);
    },
  };
  const store = new ExecutionRecordStore(file, 1000, { fs });
  store.append(record(1));
  disk.state.full = true;
  truncateFails = true;
  store.append(record(2));
  assert.ok(!(await readFile(file, 'utf8')).endsWith('\n'), 'the torn bytes are on disk');
  disk.state.full = false;
  truncateFails = false;
  store.append(record(3));
  await store.close();
  assert.deepEqual(
    parseLines(await readFile(file, 'utf8')).map((line) => line.callId),
    ['call_1', 'call_3'],
  );
});

test('a real full disk (a small tmpfs): records drop, are counted, and resume on fresh lines', async (t) => {
  const mountPoint = await mkdtemp(path.join(tmpdir(), 'spillway-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    await rm(mountPoint, { recursive: true });
    t.skip(`cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`);
    return;
  }
  // One hook, in order: unmount, then remove the mount point.
  t.after(async () => {
    execFileSync('umount', [mountPoint], { stdio: 'pipe' });
    await rm(mountPoint, { recursive: true });
  });
  const file = path.join(mountPoint, 'records.jsonl');
  const episodes: RecordEpisode[] = [];
  const store = new ExecutionRecordStore(file, 100_000, { onEpisode: (episode) => episodes.push(episode) });
  const big = (n: number): ExecutionRecord => ({ ...record(n), arguments: { n, pad: 'x'.repeat(3000) } });
  let n = 0;
  while (store.health().dropped === 0 && n < 1000) store.append(big((n += 1)));
  assert.equal(store.health().lastError, 'ENOSPC');
  store.append(big((n += 1)));
  assert.equal(store.health().dropped, 2);
  assert.equal(episodes.length, 1);
  // Space returns: the file is cut to whole lines, so freeing the last few records makes room.
  const text = await readFile(file, 'utf8');
  const kept = parseLines(text);
  const trimmed = `${text
    .split('\n')
    .filter((line) => line !== '')
    .slice(0, Math.max(1, kept.length - 4))
    .join('\n')}\n`;
  await store.close(); // let go of the file, so removing it frees its blocks
  await rm(file);
  await writeFile(file, trimmed);
  store.append(record(9999));
  await store.close();
  const after = parseLines(await readFile(file, 'utf8'));
  assert.equal(after.at(-1)?.callId, 'call_9999');
  assert.equal(store.health().failing, false);
});
