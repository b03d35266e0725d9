import { Type } from '../../util/type-builder.js';
import { enumOf } from '../../util/schema-builders.js';
import { integerKey, section } from './parts.js';

/** Configuration keys for the sandbox and data folders, the demo database, the outputs watcher and logs. */

export const sandboxSchema = section('Where spilled results, argument files, scripts and outputs live.', {
  root: Type.String({
    minLength: 1,
    default: 'sandbox',
    description: 'Sandbox root folder. Holds the .spillway-sandbox marker and one folder per conversation.',
  }),
});

export const dataSchema = section('Host state that is not conversation data.', {
  dir: Type.String({ minLength: 1, default: 'data', description: 'Folder for the execution record (records.jsonl) and the embedded demo database.' }),
});

export const demoSchema = section('The embedded demo database.', {
  rows: integerKey(1, 50_000, 'Transactions generated on first start.', { maximum: 10_000_000 }),
  seed: Type.Integer({ default: 20_261_130, description: 'Seed of the generator; the same seed gives the same data.' }),
});

export const watchSchema = section('The outputs watcher of `spillway serve`: files that appear in outputs/ by any route are announced to the conversation.', {
  maxWatchedFolders: integerKey(
    0,
    4096,
    'Folders the outputs watcher follows with a kernel watch (one inotify watch each: the sandbox root, conversation folders, outputs/ and its sub-folders); folders past this are polled.',
  ),
  pollIntervalMs: integerKey(
    100,
    2000,
    'How often folders past maxWatchedFolders are looked at (ms). Polling sees files that appear (or are renamed into place), not files rewritten in place.',
  ),
  outputsDepth: integerKey(0, 3, 'Levels of sub-folders under outputs/ that are watched; files deeper down are not announced.', { maximum: 16 }),
});

export const logSchema = section('Structured JSON logs on stderr.', {
  level: enumOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
});
