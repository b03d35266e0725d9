import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { writeOutputRecord } from '../../src/downloads/output-record.js';
import { aliceToken, downloadFixture, exportBytes, fileUrl } from './helpers.js';

const megabyte = 1024 * 1024;
const fileMegabytes = 200;

test('a 200 MB download streams from disk: the server never holds the file in memory (slow: writes, hashes and reads 200 MB)', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  // A small export, then the same output grown to 200 MB by streaming chunks to disk and recorded again, as a large export would be.
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: 'big', name: 'big.bin', bytes: Buffer.from('seed') });
  const sandbox = fixture.host.sandbox.conversation('big', 'alice');
  const absolute = path.join(sandbox.dir, card.path);
  const chunk = Buffer.alloc(megabyte);
  for (let index = 0; index < chunk.length; index += 1) chunk[index] = (index * 31 + 7) % 251;
  const expected = createHash('sha256');
  const handle = await open(absolute, 'w');
  for (let index = 0; index < fileMegabytes; index += 1) {
    chunk[0] = index % 256;
    await handle.write(chunk);
    expected.update(chunk);
  }
  await handle.close();
  const info = await stat(absolute);
  const sha256 = expected.digest('hex');
  await writeOutputRecord(sandbox, {
    path: card.path,
    tool: 'attach_file',
    sha256,
    bytes: info.size,
    mtimeMs: info.mtimeMs,
    recordedAt: new Date().toISOString(),
  });

  const baseline = process.memoryUsage();
  let peak = 0;
  const sample = () => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.heapUsed + now.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers));
  };
  const response = await fetch(fileUrl(fixture.base, 'big', card.path), { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-length'), String(fileMegabytes * megabyte));
  const received = createHash('sha256');
  let bytes = 0;
  let chunks = 0;
  for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
    received.update(part);
    bytes += part.byteLength;
    chunks += 1;
    if (chunks % 64 === 0) sample();
  }
  sample();
  t.diagnostic(`memory grew by at most ${Math.round(peak / megabyte)} MB`);
  assert.equal(bytes, fileMegabytes * megabyte);
  assert.equal(received.digest('hex'), sha256, 'byte-identical');
  // The client in this process holds received chunks until they are collected; a server that read the whole file would add 200 MB.
  assert.ok(peak < 96 * megabyte, `memory grew by ${Math.round(peak / megabyte)} MB while 200 MB were downloaded`);
});
