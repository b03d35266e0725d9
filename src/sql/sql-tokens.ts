/**
 * A small SQL lexer: enough to see words, punctuation and statement ends
 * outside string literals, quoted identifiers and comments, per dialect, so
 * that what it calls a string is what the database calls a string:
 *
 * - SQLite: '…' strings, "…", `…` and […] identifiers, no backslash escapes,
 *   no dollar quoting (`$name` is a parameter), block comments do not nest.
 * - PostgreSQL: '…' strings, E'…' strings with backslash escapes, $tag$…$tag$
 *   dollar quoting, "…" identifiers (backticks and brackets are not quotes),
 *   block comments nest.
 *
 * It does not parse SQL; the database does that.
 */
/** Which database's lexical rules apply. */
export type SqlDialect = 'sqlite' | 'postgres';

export interface SqlToken {
  kind: 'word' | 'punct' | 'string' | 'quoted' | 'number';
  /** The token's text; for words, upper-cased. */
  text: string;
  /** Offset of the token's first character in the SQL text. */
  offset: number;
}

export interface SqlScan {
  tokens: SqlToken[];
  /** A string, identifier or comment left open at the end of the text. */
  unterminated?: { what: string; offset: number };
}

const wordStart = /[A-Za-z_\u0080-\uffff]/;
const wordPart = /[A-Za-z0-9_$\u0080-\uffff]/;

/** Splits SQL into tokens, skipping whitespace and comments, by the rules of `dialect`. */
export function scanSql(sql: string, dialect: SqlDialect): SqlScan {
  const postgres = dialect === 'postgres';
  const tokens: SqlToken[] = [];
  let index = 0;
  const length = sql.length;
  while (index < length) {
    const char = sql[index] as string;
    const next = sql[index + 1];
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === '-' && next === '-') {
      const end = sql.indexOf('\n', index);
      index = end === -1 ? length : end + 1;
    } else if (char === '/' && next === '*') {
      const end = postgres ? nestedCommentEnd(sql, index) : sql.indexOf('*/', index + 2);
      if (end === -1) return { tokens, unterminated: { what: 'comment', offset: index } };
      index = end + 2;
    } else if (char === "'" || char === '"' || (!postgres && (char === '`' || char === '['))) {
      const close = char === '[' ? ']' : char;
      // PostgreSQL E'...' strings take backslash escapes (E'it\'s'); in SQLite, E is a word and the string ends at the next quote.
      const previous = tokens[tokens.length - 1];
      const backslashes = postgres && char === "'" && previous?.kind === 'word' && previous.text === 'E' && previous.offset + 1 === index;
      let end = index + 1;
      for (;;) {
        if (backslashes) {
          while (end < length && sql[end] !== close) end += sql[end] === '\\' ? 2 : 1;
          if (end >= length) end = -1;
        } else {
          end = sql.indexOf(close, end);
        }
        if (end === -1) return { tokens, unterminated: { what: char === "'" ? 'string literal' : 'quoted identifier', offset: index } };
        if (close !== ']' && sql[end + 1] === close) {
          end += 2;
          continue;
        }
        break;
      }
      tokens.push({ kind: char === "'" ? 'string' : 'quoted', text: sql.slice(index, end + 1), offset: index });
      index = end + 1;
    } else if (char === '$' && postgres) {
      // PostgreSQL dollar quoting: $$...$$ or $tag$...$tag$.
      const tagMatch = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(index, index + 66));
      if (tagMatch === null) {
        tokens.push({ kind: 'punct', text: char, offset: index });
        index += 1;
        continue;
      }
      const tag = tagMatch[0];
      const end = sql.indexOf(tag, index + tag.length);
      if (end === -1) return { tokens, unterminated: { what: 'dollar-quoted string', offset: index } };
      tokens.push({ kind: 'string', text: sql.slice(index, end + tag.length), offset: index });
      index = end + tag.length;
    } else if (wordStart.test(char)) {
      let end = index + 1;
      while (end < length && wordPart.test(sql[end] as string)) end += 1;
      tokens.push({ kind: 'word', text: sql.slice(index, end).toUpperCase(), offset: index });
      index = end;
    } else if (/[0-9.]/.test(char) && (char !== '.' || /[0-9]/.test(next ?? ''))) {
      let end = index + 1;
      while (end < length && /[0-9A-Za-z_.]/.test(sql[end] as string)) end += 1;
      tokens.push({ kind: 'number', text: sql.slice(index, end), offset: index });
      index = end;
    } else {
      tokens.push({ kind: 'punct', text: char, offset: index });
      index += 1;
    }
  }
  return { tokens };
}

/** Index of the end marker that closes the (nesting) PostgreSQL block comment opened at `start`, or -1. */
function nestedCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < sql.length - 1) {
    const pair = sql.slice(index, index + 2);
    if (pair === '/*') {
      depth += 1;
      index += 2;
    } else if (pair === '*/') {
      depth -= 1;
      if (depth === 0) return index;
      index += 2;
    } else index += 1;
  }
  return -1;
}

/** 1-based line and column of an offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1] ?? '').length + 1 };
}

/** The line holding an offset with a caret under it, for error messages. */
export function pointAt(text: string, offset: number): string {
  const { line, column } = lineAndColumn(text, offset);
  const source = (text.split('\n')[line - 1] ?? '').replace(/\t/g, ' ');
  const start = Math.max(0, column - 1 - 60);
  const shown = source.slice(start, start + 120);
  return `${start > 0 ? '…' : ''}${shown}\n${' '.repeat(column - 1 - start + (start > 0 ? 1 : 0))}^`;
}
