// A generated corpus of tool results with secrets of every listed kind planted
// in text, JSON and JSONL fields, and near-misses that must not match. Shared by
// the tests (every planted secret found, no near-miss) and bench/screening.bench.ts
// (recall and false-positive counts). Every value is made up by a seeded generator.
import type { SecretKind } from '../../src/screening/index.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** The corpus's generator: the same corpus on every run. */
export const seeded = seededRandom;

const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const alnum = `${upper}abcdefghijklmnopqrstuvwxyz0123456789`;
const base64 = `${alnum}+/`;
const base64url = `${alnum}-_`;

function pick(random: () => number, alphabet: string, length: number): string {
  let out = '';
  for (let index = 0; index < length; index += 1) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

function b64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/** One made-up secret of each kind (and the text it is planted as: a `name=value` pair for the kinds that need their name). */
export function makeSecret(kind: SecretKind, random: () => number): { value: string; field: string; inText: string } {
  switch (kind) {
    case 'aws-access-key': {
      const value = `${random() < 0.5 ? 'AKIA' : 'ASIA'}${pick(random, `${upper}234567`, 16)}`;
      return { value, field: 'access_key_id', inText: value };
    }
    case 'aws-secret-key': {
      const value = pick(random, base64, 40);
      return { value, field: 'aws_secret_access_key', inText: `aws_secret_access_key = ${value}` };
    }
    case 'github-token': {
      const value = random() < 0.5 ? `ghp_${pick(random, alnum, 36)}` : `github_pat_${pick(random, alnum, 22)}_${pick(random, alnum, 59)}`;
      return { value, field: 'gh', inText: value };
    }
    case 'slack-token': {
      const value = `xoxb-${pick(random, '0123456789', 12)}-${pick(random, '0123456789', 13)}-${pick(random, alnum, 24)}`;
      return { value, field: 'slack', inText: value };
    }
    case 'stripe-key': {
      const value = `${random() < 0.5 ? 'sk' : 'rk'}_live_${pick(random, alnum, 24)}`;
      return { value, field: 'stripe', inText: value };
    }
    case 'google-api-key': {
      const value = `AIza${pick(random, base64url, 35)}`;
      return { value, field: 'maps', inText: value };
    }
    case 'private-key': {
      const body = Array.from({ length: 6 }, () => pick(random, base64, 64)).join('\n');
      const label = ['RSA ', 'EC ', 'OPENSSH ', ''][Math.floor(random() * 4)] ?? '';
      const value = `-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----`;
      return { value, field: 'pem', inText: value };
    }
    case 'jwt': {
      const value = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${pick(random, alnum, 10)}","iat":1700000000}`)}.${pick(random, base64url, 43)}`;
      return { value, field: 'session', inText: value };
    }
    case 'connection-string': {
      const password = pick(random, alnum, 14);
      const forms = [
        `postgres://app_user:${password}@db.internal.example:5432/orders`,
        `mongodb+srv://reader:${password}@cluster0.abcde.mongodb.net/shop`,
        `redis://:${password}@cache.internal.example:6379/0`,
      ];
      const value = forms[Math.floor(random() * forms.length)] ?? '';
      return { value, field: 'dsn', inText: value };
    }
    case 'generic-secret': {
      const value = `${pick(random, alnum, 12)}${pick(random, '!#%&*', 2)}${pick(random, alnum, 6)}`;
      const field = ['password', 'api_key', 'client_secret', 'auth_token'][Math.floor(random() * 4)] ?? 'password';
      return { value, field, inText: `${field}=${value}` };
    }
  }
}

export const secretKinds: readonly SecretKind[] = [
  'aws-access-key',
  'aws-secret-key',
  'github-token',
  'slack-token',
  'stripe-key',
  'google-api-key',
  'private-key',
  'jwt',
  'connection-string',
  'generic-secret',
];

/** Values that look like secrets to a careless rule and are not: each with the field it stands in. */
export function makeNearMisses(random: () => number): { field: string; value: string }[] {
  const hex = (n: number) => pick(random, '0123456789abcdef', n);
  const uuid = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  return [
    { field: 'id', value: uuid },
    { field: 'token', value: `${hex(8)}-${hex(4)}-4${hex(3)}-b${hex(3)}-${hex(12)}` },
    { field: 'sha256', value: hex(64) },
    { field: 'etag', value: `"${hex(32)}"` },
    { field: 'commit', value: hex(40) },
    { field: 'checksum', value: hex(40) },
    // A base64 image whose payload happens to hold key-shaped runs.
    { field: 'avatar', value: `data:image/png;base64,${pick(random, base64, 200)}AKIA${pick(random, `${upper}234567`, 16)}${pick(random, base64, 200)}==` },
    { field: 'password', value: '********' },
    { field: 'password', value: '${DB_PASSWORD}' },
    { field: 'dsn', value: 'postgres://app_user:${PGPASSWORD}@db.internal.example:5432/orders' },
    { field: 'note', value: 'The token count was 4,210 and the secret santa is on Friday.' },
    { field: 'token_count', value: '18234' },
    { field: 'max_tokens', value: '4096' },
    { field: 'api_key', value: 'changeme' },
    { field: 'description', value: 'Rotate the api key every 90 days; see the password policy.' },
    { field: 'url', value: 'https://example.com/path?page=2&sort=desc' },
  ];
}

/** A planted secret: where it is (the place screening must report) and what it is. */
export interface Planted {
  kind: SecretKind;
  value: string;
  row?: number;
  field?: string;
  line?: number;
}

export interface Corpus {
  /** A table: rows with the secret in a named field (the generic kinds) or inside a sentence, and near-miss columns. */
  rows: Record<string, unknown>[];
  rowSecrets: Planted[];
  /** A text result: one secret a line among ordinary lines and near-miss lines. */
  text: string;
  textSecrets: Planted[];
  /** A JSON result (not a table): secrets nested by path. */
  json: Record<string, unknown>;
  jsonSecrets: Planted[];
  /** Near-miss values planted in all three (none may be reported). */
  nearMisses: number;
}

/** The corpus: `copies` secrets of each kind in each of the three shapes. */
export function makeCorpus(copies = 5, seed = 25): Corpus {
  const random = seeded(seed);
  const rows: Record<string, unknown>[] = [];
  const rowSecrets: Planted[] = [];
  const textLines: string[] = [];
  const textSecrets: Planted[] = [];
  const json: Record<string, unknown> = { service: 'billing', items: [] as unknown[] };
  const jsonSecrets: Planted[] = [];
  let nearMisses = 0;
  for (let copy = 0; copy < copies; copy += 1) {
    for (const kind of secretKinds) {
      const secret = makeSecret(kind, random);
      const row = rows.length + 1;
      const misses = makeNearMisses(random);
      const miss = misses[(copy * secretKinds.length + rows.length) % misses.length] ?? { field: 'id', value: '' };
      nearMisses += 1;
      const named = kind === 'generic-secret' || kind === 'aws-secret-key';
      if (named) {
        rows.push({ id: row, [secret.field]: secret.value, [`near_${miss.field}`]: miss.value });
        rowSecrets.push({ kind, value: secret.value, row, field: secret.field });
      } else {
        rows.push({ id: row, note: `deploy log: using ${secret.value} for the job`, [`near_${miss.field}`]: miss.value });
        rowSecrets.push({ kind, value: secret.value, row, field: 'note' });
      }
      nearMisses += 1;
      textLines.push(`step ${row}: configured ${secret.inText} and continued`);
      textSecrets.push({ kind, value: secret.value });
      textLines.push(`${miss.field}: ${miss.value}`);
      nearMisses += 1;
      const items = json.items as unknown[];
      const index = items.length;
      items.push({
        name: `item ${index}`,
        config: named ? { [secret.field]: secret.value } : { value: `x ${secret.value} y` },
        [`near_${miss.field}`]: miss.value,
      });
      jsonSecrets.push({ kind, value: secret.value, field: named ? `items[${index}].config.${secret.field}` : `items[${index}].config.value` });
      nearMisses += 1;
    }
  }
  // Lines: a PEM block spans several lines; its finding is on its first line.
  let line = 1;
  const numbered: Planted[] = [];
  let secretIndex = 0;
  for (const text of textLines) {
    const planted = textSecrets[secretIndex];
    if (planted !== undefined && text.includes(planted.value)) {
      numbered.push({ ...planted, line });
      secretIndex += 1;
    }
    line += text.split('\n').length;
  }
  return { rows, rowSecrets, text: `${textLines.join('\n')}\n`, textSecrets: numbered, json, jsonSecrets, nearMisses };
}
