import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createStartupLogger } from '../../src/log/logger.js';

function capture(): { lines: string[]; destination: { write(line: string): void } } {
  const lines: string[] = [];
  return { lines, destination: { write: (line) => void lines.push(line) } };
}

const messages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);

test('a start that succeeds writes the held lines in order, then lets later ones through', () => {
  const { lines, destination } = capture();
  const startup = createStartupLogger('info', destination);
  startup.logger.info('database built');
  startup.logger.warn('slow disk');
  assert.deepEqual(lines, []);
  startup.release();
  assert.deepEqual(messages(lines), ['database built', 'slow disk']);
  startup.logger.info('serving');
  assert.deepEqual(messages(lines), ['database built', 'slow disk', 'serving']);
});

test('a start that fails drops the held lines and every later one', () => {
  const { lines, destination } = capture();
  const startup = createStartupLogger('info', destination);
  startup.logger.info('database built');
  startup.discard();
  startup.logger.error('stopping after the failed start');
  startup.release();
  assert.deepEqual(lines, []);
});

test('a start that logs more than the holding limit is shown as it goes, nothing lost', () => {
  const { lines, destination } = capture();
  const startup = createStartupLogger('info', destination);
  for (let index = 0; index < 1500; index++) startup.logger.info(`line ${index}`);
  assert.equal(lines.length, 1500);
  assert.deepEqual(messages(lines).slice(998, 1001), ['line 998', 'line 999', 'line 1000']);
});

test('the level applies while holding: lines below it are never kept', () => {
  const { lines, destination } = capture();
  const startup = createStartupLogger('warn', destination);
  startup.logger.info('not kept');
  startup.logger.warn('kept');
  startup.release();
  assert.deepEqual(messages(lines), ['kept']);
});
