import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import fc from 'fast-check';
import { attachmentUri } from '../../src/outputs/attachments.js';
import { readLines } from '../../src/tools/reread/read-lines.js';
import { call, filesHost } from '../files/helpers.js';
import { connectHttpClient } from '../helpers/http-client.js';

const mib = 1024 * 1024;

/** The host process's resident size now, and the highest it has been (RUSAGE_SELF). */
function rss(): { now: number; peak: number } {
  return { now: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024 };
}

/** Writes `bytes` bytes of one line (no line break) by streaming one reused 1 MiB block: making the file costs no memory. */
async function writeOneLine(file: string, bytes: number, head: string, tail: string): Promise<void> {
  const block = Buffer.alloc(mib, 'x');
  let left = bytes - head.length - tail.length;
  async function* blocks() {
    yield Buffer.from(head);
    while (left > 0) {
      const size = Math.min(left, block.length);
      left -= size;
      yield size === block.length ? block : block.subarray(0, size);
    }
    yield Buffer.from(tail);
  }
  await pipeline(Readable.from(blocks()), createWriteStream(file));
}

test('resources/read over MCP refuses an output past resources.maxReadBytes on the opened file, naming its size, the cap and the tools that read it in parts; a small one still comes back', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const { client, sessionId } = await connectHttpClient(t, env.host);
  const outputs = path.join(env.host.sandbox.conversation(sessionId).dir, 'outputs');
  await mkdir(outputs, { recursive: true });
  // 238 MiB without writing them: a sparse file has the size, and the refusal must come from the size alone.
  const big = await open(path.join(outputs, 'big.csv'), 'w');
  await big.truncate(238 * mib);
  await big.close();
  await writeFile(path.join(outputs, 'small.txt'), 'hello\n');

  const before = rss();
  const refused = await client.readResource({ uri: attachmentUri('outputs/big.csv') }).then(
    () => assert.fail('a 238 MiB resource was read'),
    (error: { message: string; data?: { code?: string } }) => error,
  );
  assert.equal(refused.data?.code, 'RESULT_TOO_LARGE');
  assert.match(refused.message, /outputs\/big\.csv is 238 MiB/);
  assert.match(refused.message, /at most 16 MiB \(resources\.maxReadBytes\)/);
  assert.match(refused.message, /read_file with path "outputs\/big\.csv" and offset\/limit/);
  assert.ok(rss().peak - before.now < 64 * mib, 'the refusal read nothing');

  const small = await client.readResource({ uri: attachmentUri('outputs/small.txt') });
  assert.equal((small.contents[0] as { text?: string }).text, 'hello\n');
});

test('search_file and read_file on a 200 MB one-line file stay bounded: the line is matched and shown by its head, with a note, and the host grows less than 128 MB (slow: writes 200 MB)', async (t) => {
  const env = await filesHost();
  const dir = env.host.sandbox.conversation('c1').dir;
  const file = path.join(dir, 'outputs', 'one-line.txt');
  t.after(async () => {
    await rm(file, { force: true });
    await env.cleanup();
  });
  await mkdir(path.dirname(file), { recursive: true });
  const bytes = 200 * 1000 * 1000;
  await writeOneLine(file, bytes, 'NEEDLE-AT-START ', ' NEEDLE-AT-END');

  const before = rss();
  const atStart = await call(env, 'search_file', { path: 'outputs/one-line.txt', pattern: 'NEEDLE-AT-START' });
  const grown = rss().peak - before.now;
  assert.ok(grown < 128 * mib, `search_file: the host's RSS peaked ${Math.round(grown / mib)} MiB above where it started`);
  assert.equal(atStart.isError, false, atStart.text);
  assert.match(atStart.text, /^\[1 matching line in outputs\/one-line\.txt \(1 lines\)\]/);
  assert.match(atStart.text, /NEEDLE-AT-START x+… \[line cut: 200,000,000 characters\]/);
  assert.match(atStart.text, /1 line is longer than 65,536 characters; only the first 65,536 characters of it were searched/);
  // Past the head: not found, and the note says why.
  const atEnd = await call(env, 'search_file', { path: 'outputs/one-line.txt', pattern: 'NEEDLE-AT-END' });
  assert.match(atEnd.text, /^\[No line of outputs\/one-line\.txt \(1 lines\) matches "NEEDLE-AT-END"\.\]/);
  assert.match(atEnd.text, /only the first 65,536 characters of it were searched/);
  const regex = await call(env, 'search_file', { path: 'outputs/one-line.txt', pattern: '^NEEDLE-[A-Z]+', regex: true });
  assert.match(regex.text, /^\[1 matching line/);
  // The head does not end where the line ends: an anchored pattern does not match at the cut.
  const anchored = await call(env, 'search_file', { path: 'outputs/one-line.txt', pattern: 'x+$', regex: true });
  assert.match(anchored.text, /^\[No line of outputs\/one-line\.txt \(1 lines\) matches/);

  const read = await call(env, 'read_file', { path: 'outputs/one-line.txt' });
  assert.equal(read.isError, false, read.text);
  assert.match(read.text, /^\[outputs\/one-line\.txt: lines 1–1 of 1\]\n {5}1\tNEEDLE-AT-START x+… \[line cut: 200,000,000 characters\]$/);
  assert.ok(read.text.length < env.config.reread.maxLineChars + 200);

  const growth = rss().peak - before.now;
  assert.ok(growth < 128 * mib, `read_file and search_file: the host's RSS peaked ${Math.round(growth / mib)} MiB above where it started`);
});

/** The lines readline gives (what read_file used before): the reference for the chunked reader. */
async function readlineLines(file: string): Promise<string[]> {
  const handle = await open(file);
  try {
    const lines: string[] = [];
    for await (const line of createInterface({ input: handle.createReadStream({ encoding: 'utf8', autoClose: false }), crlfDelay: Infinity })) lines.push(line);
    return lines;
  } finally {
    await handle.close();
  }
}

test('property: the chunked line reader splits lines as readline does, whatever the chunk size (line endings and UTF-8 characters cut between chunks)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  await mkdir(path.join(sandbox.dir, 'outputs'), { recursive: true });
  const piece = fc.constantFrom('a', 'bc', '\n', '\r\n', '\r', 'é', '€', '😀', ' ', '');
  await fc.assert(
    fc.asyncProperty(
      fc.array(piece, { maxLength: 40 }),
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 6 }),
      async (pieces, chunkBytes, keepChars) => {
        const text = pieces.join('');
        await writeFile(path.join(sandbox.dir, 'outputs', 'lines.txt'), text);
        const expected = await readlineLines(path.join(sandbox.dir, 'outputs', 'lines.txt'));
        const file = await sandbox.openRead('outputs/lines.txt');
        try {
          const got: { number: number; text: string; length: number }[] = [];
          for await (const line of readLines(file, { chunkBytes, keepChars })) got.push(line);
          assert.deepEqual(
            got.map((line) => line.number),
            expected.map((_, index) => index + 1),
            JSON.stringify(text),
          );
          assert.deepEqual(
            got.map((line) => [line.text, line.length]),
            expected.map((line) => [line.slice(0, keepChars), line.length]),
            JSON.stringify(text),
          );
        } finally {
          await file.handle.close();
        }
      },
    ),
    { numRuns: 150 },
  );
});
