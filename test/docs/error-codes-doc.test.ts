// Every error code a user can see is named in the docs where it can appear, and the docs name
// no code that spillway cannot produce (issue 24): src/errors.ts is the one list of codes.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/config/package-root.js';
import { errorCodes } from '../../src/errors.js';

const docFiles = [
  'README.md',
  ...readdirSync(path.join(packageRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const docs = new Map(docFiles.map((file) => [file, readFileSync(path.join(packageRoot, file), 'utf8')]));

/** Tokens in code spans that look like codes but are not error codes: variables, flags, sweep-report problems. */
const notErrorCodes = [/^SPILLWAY_/, /^O_[A-Z]+$/, /^(RECORD|WIDE)_ROWS$/, /^(SYMLINK_FOLDER|NOT_A_FOLDER)$/];

/** The SCREAMING_SNAKE_CASE tokens inside `code spans` of a text. */
function codeLikeTokens(text: string): string[] {
  return [...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((match) => match[1] as string);
}

test('the code-span scan finds SCREAMING_SNAKE tokens only inside backticks', () => {
  assert.deepEqual(codeLikeTokens('`TOOL_NOT_FOUND` and BUSY_X and `Mixed_Case` and `SQL_BUSY`'), ['TOOL_NOT_FOUND', 'SQL_BUSY']);
});

test('every error code of src/errors.ts is named in the README or docs/', () => {
  const everything = [...docs.values()].join('\n');
  const missing = Object.keys(errorCodes).filter((code) => !new RegExp(`\\b${code}\\b`).test(everything));
  assert.deepEqual(missing, [], 'codes a user can meet that no page explains');
});

test('every error-code-like name in the README and docs/ is a code spillway has', () => {
  const known = new Set(Object.keys(errorCodes));
  const unknown = [...docs].flatMap(([file, text]) =>
    codeLikeTokens(text)
      .filter((token) => !known.has(token) && !notErrorCodes.some((pattern) => pattern.test(token)))
      .map((token) => `${file}: ${token}`),
  );
  assert.deepEqual(unknown, [], 'names the docs give as codes that src/errors.ts does not have');
});
