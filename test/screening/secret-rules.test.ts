import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FindingCollector, type Finding } from '../../src/screening/findings.js';
import type { ScreeningPolicy } from '../../src/screening/screening-policy.js';
import { screenText } from '../../src/screening/screen-text.js';
import { screenJson, screenRow } from '../../src/screening/screen-value.js';
import { findSecrets } from '../../src/screening/secret-rules.js';
import { makeCorpus, makeNearMisses, seeded, secretKinds } from './secret-corpus.js';

const redact: ScreeningPolicy = { secrets: 'redact', injection: 'off', keep: false, maxFindings: 10_000 };

const key = (finding: Pick<Finding, 'kind' | 'row' | 'field' | 'line'>) =>
  JSON.stringify([finding.kind, finding.row ?? null, finding.field ?? null, finding.line ?? null]);

test('every planted secret of each listed kind is found in JSONL rows, at its row and field, and no near-miss is reported', () => {
  const corpus = makeCorpus(5);
  const collector = new FindingCollector(10_000);
  const screened = corpus.rows.map((row, index) => screenRow(row, index + 1, redact, collector)?.model ?? row);
  assert.deepEqual(collector.findings.map(key).sort(), corpus.rowSecrets.map(key).sort());
  assert.equal(new Set(corpus.rowSecrets.map((planted) => planted.kind)).size, secretKinds.length);
  const text = JSON.stringify(screened);
  for (const planted of corpus.rowSecrets) assert.ok(!text.includes(planted.value), `${planted.kind} left in row ${planted.row}`);
  for (const planted of corpus.rowSecrets) assert.ok(JSON.stringify(screened[(planted.row ?? 0) - 1]).includes(`[REDACTED:${planted.kind}]`));
});

test('every planted secret is found in a text result at its line, and no near-miss line is reported', () => {
  const corpus = makeCorpus(5);
  const collector = new FindingCollector(10_000);
  const screened = screenText(corpus.text, redact, collector);
  assert.deepEqual(collector.findings.map(key).sort(), corpus.textSecrets.map(key).sort());
  for (const planted of corpus.textSecrets) assert.ok(!screened.model.includes(planted.value), `${planted.kind} left in the text`);
});

test('every planted secret is found in a nested JSON result at its JSON path, and no near-miss is reported', () => {
  const corpus = makeCorpus(5);
  const collector = new FindingCollector(10_000);
  const screened = screenJson(corpus.json, redact, collector);
  assert.deepEqual(collector.findings.map(key).sort(), corpus.jsonSecrets.map(key).sort());
  const text = JSON.stringify(screened.model);
  for (const planted of corpus.jsonSecrets) assert.ok(!text.includes(planted.value));
  // The input is left as it was (screening copies what it changes).
  assert.ok(JSON.stringify(corpus.json).includes(corpus.jsonSecrets[0]?.value ?? '?'));
});

test('near-misses alone: UUIDs, hashes under hash-like names, base64 images, placeholders and prose are never secrets', () => {
  const random = seeded(7);
  for (let round = 0; round < 20; round += 1) {
    for (const miss of makeNearMisses(random)) {
      const collector = new FindingCollector(100);
      screenJson({ [miss.field]: miss.value }, redact, collector);
      screenText(`${miss.field}: ${miss.value}`, redact, collector);
      screenText(`${miss.field}=${miss.value}`, redact, collector);
      assert.deepEqual(collector.findings, [], `${miss.field}: ${miss.value}`);
    }
  }
});

test('flag keeps the values and still reports them; keep puts the original in the file only', () => {
  const row = { id: 1, note: 'key AKIAIOSFODNN7EXAMPLE' };
  const flagged = screenRow(row, 1, { ...redact, secrets: 'flag' }, new FindingCollector(10));
  assert.equal(flagged, undefined, 'flag changes nothing');
  const collector = new FindingCollector(10);
  const kept = screenRow(row, 1, { ...redact, keep: true }, collector);
  assert.deepEqual(kept?.model, { id: 1, note: 'key [REDACTED:aws-access-key]' });
  assert.equal(kept?.file, row);
  assert.equal(collector.secrets, 1);
});

test('a PEM block is redacted whole, from BEGIN to END', () => {
  const text = 'before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\nabc+/=\n-----END RSA PRIVATE KEY-----\nafter';
  const screened = screenText(text, redact, new FindingCollector(10));
  assert.equal(screened.model, 'before\n[REDACTED:private-key]\nafter');
  assert.deepEqual(findSecrets('-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----'), []);
});
