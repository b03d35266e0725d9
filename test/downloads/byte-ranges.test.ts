import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseRange } from '../../src/downloads/byte-range.js';
import { contentDisposition } from '../../src/downloads/content-disposition.js';
import { aliceToken, bytesOf, downloadFixture, exportBytes, fileUrl } from './helpers.js';

type RangeSpec = { kind: 'from-to'; start: number; end: number } | { kind: 'from'; start: number } | { kind: 'suffix'; length: number };

/** What a client means by a Range header against a file of `size` bytes, written independently of the parser. */
function expectedSlice(spec: RangeSpec, size: number) {
  if (spec.kind === 'suffix') return spec.length === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - spec.length), end: size - 1 };
  if (spec.start >= size) return 'unsatisfiable';
  return { start: spec.start, end: spec.kind === 'from' ? size - 1 : Math.min(spec.end, size - 1) };
}

const rangeSpec = (size: number) =>
  fc.oneof(
    fc
      .tuple(fc.nat({ max: size + 50 }), fc.nat({ max: size + 50 }))
      .map(([a, b]) => ({ kind: 'from-to' as const, start: Math.min(a, b), end: Math.max(a, b) })),
    fc.nat({ max: size + 50 }).map((start) => ({ kind: 'from' as const, start })),
    fc.nat({ max: size + 50 }).map((length) => ({ kind: 'suffix' as const, length })),
  );

const headerOf = (spec: RangeSpec) =>
  spec.kind === 'from-to' ? `bytes=${spec.start}-${spec.end}` : spec.kind === 'from' ? `bytes=${spec.start}-` : `bytes=-${spec.length}`;

test('parseRange agrees with the meaning of every single byte range (property)', () => {
  fc.assert(
    fc.property(
      fc.nat({ max: 5000 }).chain((size) => fc.tuple(fc.constant(size), rangeSpec(size))),
      ([size, spec]) => {
        assert.deepEqual(parseRange(headerOf(spec), size), expectedSlice(spec, size));
      },
    ),
  );
});

test('parseRange ignores what it must not honour: several ranges, other units, garbage, a reversed range', () => {
  for (const header of [undefined, 'bytes=0-1,5-6', 'items=0-5', 'bytes=', 'bytes=-', 'bytes=5-2', 'bytes=a-b', 'bytes 0-5']) {
    assert.equal(parseRange(header, 100), 'ignore', String(header));
  }
  assert.deepEqual(parseRange('BYTES=0-0', 100), { start: 0, end: 0 });
  assert.equal(parseRange('bytes=0-', 0), 'unsatisfiable');
});

test('Range requests return exactly the slice of the file: 206 with Content-Range, 416 when past the end (property over a real server)', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const bytes = randomBytes(9_973);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: 'ranges', name: 'data.bin', bytes });
  const url = fileUrl(fixture.base, 'ranges', card.path);
  const auth = { authorization: `Bearer ${aliceToken}` };
  await fc.assert(
    fc.asyncProperty(rangeSpec(bytes.length), async (spec) => {
      const response = await fetch(url, { headers: { ...auth, range: headerOf(spec) } });
      const expected = expectedSlice(spec, bytes.length);
      if (expected === 'unsatisfiable') {
        assert.equal(response.status, 416);
        assert.equal(response.headers.get('content-range'), `bytes */${bytes.length}`);
        await response.arrayBuffer();
        return;
      }
      assert.equal(response.status, 206);
      assert.equal(response.headers.get('content-range'), `bytes ${expected.start}-${expected.end}/${bytes.length}`);
      assert.deepEqual(await bytesOf(response), bytes.subarray(expected.start, expected.end + 1));
    }),
    { numRuns: 60 },
  );

  const etag = (await fetch(url, { method: 'HEAD', headers: auth })).headers.get('etag') ?? '';
  const matching = await fetch(url, { headers: { ...auth, range: 'bytes=0-9', 'if-range': etag } });
  assert.equal(matching.status, 206);
  assert.equal((await bytesOf(matching)).length, 10);
  const stale = await fetch(url, { headers: { ...auth, range: 'bytes=0-9', 'if-range': '"an-older-version"' } });
  assert.equal(stale.status, 200, 'If-Range of another version: the whole file');
  assert.equal((await bytesOf(stale)).length, bytes.length);
  const several = await fetch(url, { headers: { ...auth, range: 'bytes=0-1,4-5' } });
  assert.equal(several.status, 200);
  await several.arrayBuffer();
});

test('Content-Disposition: filename* decodes back to the name and the fallback is plain quoted ASCII (property)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (name) => {
      const header = contentDisposition(name);
      const match = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/.exec(header);
      assert.ok(match !== null, header);
      assert.equal(decodeURIComponent(match[2] ?? ''), name);
      assert.match(match[1] ?? '', /^[\x20-\x7e]*$/);
      assert.ok(!(match[1] ?? '').includes('\\'));
    }),
  );
  assert.equal(contentDisposition('a "b".csv'), `attachment; filename="a _b_.csv"; filename*=UTF-8''a%20%22b%22.csv`);
});
