import { cellKind } from '../selection/cell-kinds.js';

/** How a scanned field's value is held: see {@link JsonlLineScanner}. */
export const slotType = { empty: 0, raw: 1, true: 2, false: 3, value: 4 } as const;

/**
 * Which strings may be copied into a CSV cell byte for byte. With the formula
 * guard on: text that starts with a digit or a letter-range character (it
 * triggers and hides nothing) and holds no `,` `;` `|` (no reader's delimiter
 * can split a formula out of it, and a comma would need quotes). With the guard
 * off: text without the delimiter. A JSON string without a backslash holds no
 * quote, CR or LF, so neither needs quotes for those.
 */
export interface RawStringRule {
  formulaGuard: boolean;
  delimiter: ',' | ';' | '\t';
}

const comma = 1;
const semicolon = 2;
const pipe = 4;

/**
 * Reads one JSONL line (bytes, valid UTF-8) as a flat row without building
 * an object: for each wanted field, where its value's bytes are and how they
 * become a CSV cell. Numbers that JSON.stringify would write the same way and
 * strings a CSV cell holds unchanged stay as byte ranges (`raw`); anything else
 * (an escaped or guarded string, a number written another way, a nested value)
 * is parsed with JSON.parse into `values`. The grammar is JSON's, strictly:
 * `scan` returns false for anything it does not fully recognise (an escaped
 * key, an invalid line, a blank one), and the caller then reads the line with
 * JSON.parse as before, so errors and odd lines behave exactly as they did.
 * Duplicate keys: the last one wins, as with JSON.parse.
 */
export class JsonlLineScanner {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly types: Uint8Array;
  readonly kinds: Uint8Array;
  readonly values: unknown[];
  private readonly names: Buffer[];
  private readonly byName = new Map<string, number>();
  private readonly rawMask: number;
  private readonly checkFirst: boolean;

  constructor(fields: readonly string[], rule: RawStringRule) {
    const width = fields.length;
    this.starts = new Int32Array(width);
    this.ends = new Int32Array(width);
    this.types = new Uint8Array(width);
    this.kinds = new Uint8Array(width);
    this.values = new Array<unknown>(width).fill(null);
    this.names = fields.map((field) => Buffer.from(field, 'utf8'));
    fields.forEach((field, index) => this.byName.set(field, index));
    this.checkFirst = rule.formulaGuard;
    this.rawMask = rule.formulaGuard ? comma | semicolon | pipe : rule.delimiter === ',' ? comma : rule.delimiter === ';' ? semicolon : 0;
  }

  /** Scans `buffer[start, end)` (one line, no LF); false: not a line this scanner takes whole. */
  scan(buffer: Buffer, start: number, end: number): boolean {
    const types = this.types;
    types.fill(slotType.empty);
    let at = skipSpace(buffer, start, end);
    if (at >= end || buffer[at] !== 0x7b) return false;
    at = skipSpace(buffer, at + 1, end);
    if (at < end && buffer[at] === 0x7d) return skipSpace(buffer, at + 1, end) === end;
    let guess = 0;
    for (;;) {
      if (at >= end || buffer[at] !== 0x22) return false;
      const keyStart = at + 1;
      let keyEnd = keyStart;
      for (;;) {
        if (keyEnd >= end) return false;
        const byte = buffer[keyEnd] as number;
        if (byte === 0x22) break;
        if (byte === 0x5c || byte < 0x20) return false;
        keyEnd += 1;
      }
      const slot = this.slotOf(buffer, keyStart, keyEnd, guess);
      if (slot >= 0) guess = slot + 1;
      at = skipSpace(buffer, keyEnd + 1, end);
      if (at >= end || buffer[at] !== 0x3a) return false;
      at = skipSpace(buffer, at + 1, end);
      if (at >= end) return false;
      at = this.value(buffer, at, end, slot);
      if (at < 0) return false;
      at = skipSpace(buffer, at, end);
      if (at >= end) return false;
      const next = buffer[at];
      if (next === 0x7d) return skipSpace(buffer, at + 1, end) === end;
      if (next !== 0x2c) return false;
      at = skipSpace(buffer, at + 1, end);
    }
  }

  private slotOf(buffer: Buffer, start: number, end: number, guess: number): number {
    const expected = this.names[guess];
    if (expected !== undefined && expected.length === end - start) {
      let same = true;
      for (let index = 0; index < expected.length; index += 1) {
        if (expected[index] !== buffer[start + index]) {
          same = false;
          break;
        }
      }
      if (same) return guess;
    }
    return this.byName.get(buffer.toString('utf8', start, end)) ?? -1;
  }

  /** Reads the value at `start` into `slot` (-1: not wanted, still checked); the index after it, or -1. */
  private value(buffer: Buffer, start: number, end: number, slot: number): number {
    const byte = buffer[start] as number;
    if (byte === 0x22) return this.string(buffer, start, end, slot);
    if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) return this.number(buffer, start, end, slot);
    if (byte === 0x74) return this.literal(buffer, start, end, slot, trueBytes, slotType.true, cellKind.boolean);
    if (byte === 0x66) return this.literal(buffer, start, end, slot, falseBytes, slotType.false, cellKind.boolean);
    if (byte === 0x6e) return this.literal(buffer, start, end, slot, nullBytes, slotType.empty, 0);
    if (byte === 0x7b || byte === 0x5b) return this.nested(buffer, start, end, slot);
    return -1;
  }

  private literal(buffer: Buffer, start: number, end: number, slot: number, text: Buffer, type: number, kind: number): number {
    if (start + text.length > end) return -1;
    for (let index = 1; index < text.length; index += 1) if (buffer[start + index] !== text[index]) return -1;
    if (slot >= 0) {
      this.types[slot] = type;
      this.kinds[slot] = kind;
    }
    return start + text.length;
  }

  private string(buffer: Buffer, start: number, end: number, slot: number): number {
    let at = start + 1;
    let escaped = false;
    let seen = 0;
    for (;;) {
      if (at >= end) return -1;
      const byte = buffer[at] as number;
      if (byte === 0x22) break;
      if (byte === 0x5c) {
        escaped = true;
        at += 2;
        continue;
      }
      if (byte < 0x20) return -1;
      if (byte === 0x2c) seen |= comma;
      else if (byte === 0x3b) seen |= semicolon;
      else if (byte === 0x7c) seen |= pipe;
      at += 1;
    }
    const after = at + 1;
    if (escaped) {
      // Escapes are JSON.parse's to judge and decode (and a wrong one fails the line), wanted or not.
      const value = parseRange(buffer, start, after);
      if (value === unparsable) return -1;
      if (slot >= 0) this.hold(slot, value, cellKind.text);
      return after;
    }
    if (slot < 0) return after;
    const first = buffer[start + 1] as number;
    const plainStart = !this.checkFirst || (first >= 0x41 && first <= 0x7e) || (first >= 0x30 && first <= 0x39);
    if (plainStart && (seen & this.rawMask) === 0 && at > start + 1) {
      this.starts[slot] = start + 1;
      this.ends[slot] = at;
      this.types[slot] = slotType.raw;
      this.kinds[slot] = cellKind.text;
    } else {
      this.hold(slot, buffer.toString('utf8', start + 1, at), cellKind.text);
    }
    return after;
  }

  /**
   * A JSON number; raw when String(Number(text)) is the text itself: no
   * exponent, no "-0", no trailing zero after the point, at most 15 significant
   * digits (every such decimal is the shortest that reads back as its double)
   * and at most five zeros after "0." (JavaScript writes 1e-7 in exponent form).
   */
  private number(buffer: Buffer, start: number, end: number, slot: number): number {
    let at = start;
    const negative = buffer[at] === 0x2d;
    if (negative) at += 1;
    if (at >= end) return -1;
    let byte = buffer[at] as number;
    let significant = 0;
    const zeroInteger = byte === 0x30;
    if (zeroInteger) at += 1;
    else if (byte >= 0x31 && byte <= 0x39) {
      while (at < end && (byte = buffer[at] as number) >= 0x30 && byte <= 0x39) {
        at += 1;
        significant += 1;
      }
    } else return -1;
    let canonical = !(zeroInteger && negative);
    if (at < end && buffer[at] === 0x2e) {
      at += 1;
      const fractionStart = at;
      let leadingZeros = 0;
      while (at < end && (byte = buffer[at] as number) >= 0x30 && byte <= 0x39) {
        if (byte === 0x30 && at - fractionStart === leadingZeros) leadingZeros += 1;
        at += 1;
      }
      const digits = at - fractionStart;
      if (digits === 0) return -1;
      significant += zeroInteger ? digits - leadingZeros : digits;
      // "-0.5" is written as itself; "0.50", "-0.0" and 1e-7 ("0.0000001") are not.
      canonical = buffer[at - 1] !== 0x30 && (!zeroInteger || leadingZeros <= 5);
    }
    if (at < end && ((byte = buffer[at] as number) === 0x65 || byte === 0x45)) {
      at += 1;
      if (at < end && ((byte = buffer[at] as number) === 0x2b || byte === 0x2d)) at += 1;
      const digitsStart = at;
      while (at < end && (byte = buffer[at] as number) >= 0x30 && byte <= 0x39) at += 1;
      if (at === digitsStart) return -1;
      canonical = false;
    }
    if (slot < 0) return at;
    if (canonical && significant <= 15) {
      this.starts[slot] = start;
      this.ends[slot] = at;
      this.types[slot] = slotType.raw;
      this.kinds[slot] = cellKind.number;
    } else {
      this.hold(slot, Number(buffer.toString('latin1', start, at)), cellKind.number);
    }
    return at;
  }

  /** An object or array: its end found (strings skipped), then JSON.parse judges and reads it. */
  private nested(buffer: Buffer, start: number, end: number, slot: number): number {
    let depth = 0;
    let at = start;
    while (at < end) {
      const byte = buffer[at] as number;
      if (byte === 0x22) {
        at += 1;
        while (at < end) {
          const inner = buffer[at] as number;
          if (inner === 0x22) break;
          at += inner === 0x5c ? 2 : 1;
        }
        if (at >= end) return -1;
      } else if (byte === 0x7b || byte === 0x5b) depth += 1;
      else if (byte === 0x7d || byte === 0x5d) {
        depth -= 1;
        if (depth === 0) {
          at += 1;
          break;
        }
      }
      at += 1;
    }
    if (depth !== 0) return -1;
    const value = parseRange(buffer, start, at);
    if (value === unparsable) return -1;
    if (slot >= 0) this.hold(slot, value, cellKind.nested);
    return at;
  }

  private hold(slot: number, value: unknown, kind: number): void {
    this.values[slot] = value;
    this.types[slot] = slotType.value;
    this.kinds[slot] = kind;
  }
}

const trueBytes = Buffer.from('true');
const falseBytes = Buffer.from('false');
const nullBytes = Buffer.from('null');

/** JSON's whitespace inside a line: space, tab, CR. */
function skipSpace(buffer: Buffer, at: number, end: number): number {
  while (at < end) {
    const byte = buffer[at];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) break;
    at += 1;
  }
  return at;
}

const unparsable = Symbol('unparsable');

/** JSON.parse of the bytes start..end, or `unparsable` (the caller fails the line). */
function parseRange(buffer: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buffer.toString('utf8', start, end));
  } catch {
    return unparsable;
  }
}
