import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { measureColumns } from '../../src/files/layout/column-widths.js';
import { displayCells, longestKeptEms, longestWordEms, textEms } from '../../src/files/layout/text-width.js';

/** Code points East Asian Width calls Wide or Fullwidth: ideographs, kana, Hangul syllables, full-width forms. */
const wideChar = fc.oneof(
  fc.integer({ min: 0x4e00, max: 0x9fff }),
  fc.integer({ min: 0x3041, max: 0x3096 }),
  fc.integer({ min: 0x30a1, max: 0x30fa }),
  fc.integer({ min: 0xac00, max: 0xd7a3 }),
  fc.integer({ min: 0xff01, max: 0xff60 }),
  fc.integer({ min: 0x20000, max: 0x2a6df }),
);
/** Whole emoji as a reader sees them: one pictograph, with a skin tone, a ZWJ family, a flag. */
const emoji = fc.constantFrom('😀', '🎉', '📦', '🚚', '👍🏽', '❤️', '👨‍👩‍👧‍👦', '👩🏾‍💻', '🏳️‍🌈', '🇯🇵', '🇮🇱', '🇦🇪');
const latin = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split(''));
/** Text of Latin letters, wide characters, emoji and spaces, each piece with its expected grid cells. */
const piece = fc.oneof(
  latin.map((text) => ({ text, cells: 1 })),
  wideChar.map((code) => ({ text: String.fromCodePoint(code), cells: 2 })),
  emoji.map((text) => ({ text, cells: 2 })),
  fc.constant({ text: ' ', cells: 1 }),
);

test('grid cells (XLSX widths): a wide or full-width character and a whole emoji (ZWJ sequence, flag, skin tone) take two, a Latin letter one', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
      const text = pieces.map((one) => one.text).join('');
      assert.equal(
        displayCells(text),
        pieces.reduce((sum, one) => sum + one.cells, 0),
      );
    }),
  );
});

test('widths in ems: additive over pieces, a wide character one em (about two Latin letters), an emoji sequence one emoji wide', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
      const text = pieces.map((one) => one.text).join('');
      const sum = pieces.reduce((total, one) => total + textEms(one.text), 0);
      assert.ok(Math.abs(textEms(text) - sum) < 1e-9, `${text}: ${textEms(text)} vs ${sum}`);
    }),
  );
  fc.assert(
    fc.property(wideChar, latin, (code, letter) => {
      const wide = textEms(String.fromCodePoint(code));
      assert.equal(wide, 1);
      assert.ok(wide >= 1.1 * textEms(letter) && wide <= 3.2 * textEms(letter), `${String.fromCodePoint(code)} against ${letter}`);
    }),
  );
  fc.assert(
    fc.property(emoji, (sequence) => {
      assert.equal(textEms(sequence), textEms('😀'), `${sequence} is drawn as one emoji`);
    }),
  );
});

test('kept runs: never less than the longest word, never more than the longest space-free run, and a run of wide characters up to the limit is kept whole', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), fc.double({ min: 0, max: 20, noNaN: true }), (pieces, keep) => {
      const text = pieces.map((one) => one.text).join('');
      const kept = longestKeptEms(text, keep);
      const longestRun = Math.max(0, ...text.split(/\s+/).map((word) => textEms(word)));
      assert.ok(kept >= longestWordEms(text) - 1e-9 && kept <= longestRun + 1e-9, `${text}: ${kept}`);
    }),
  );
  fc.assert(
    fc.property(fc.array(wideChar, { minLength: 1, maxLength: 30 }), (codes) => {
      const run = String.fromCodePoint(...codes);
      assert.equal(longestKeptEms(run, 10), Math.min(codes.length, 10));
    }),
  );
});

test('column needs: a column of CJK names up to ten characters needs the whole name; a 65-character Chinese note needs no more than ten', () => {
  const { need } = measureColumns({
    headers: ['customer', 'note'],
    cells: [
      ['北京星辰科技有限公司', '株式会社サンプル商事'],
      ['本季度华东地区的订单数量比去年同期增长了百分之三十七主要原因是新开的仓库缩短了配送时间客户满意度也随之提高'],
    ],
    fontSize: 9,
    padding: 0,
  });
  assert.ok((need[0] ?? 0) >= 10 * 9, `ten ideographs at 9 pt (${need[0]})`);
  assert.ok((need[1] ?? 0) <= 10 * 9 * 1.03 + 1 + 1e-9, `the long note may wrap (${need[1]})`);
});
