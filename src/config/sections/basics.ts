import { Type } from '@sinclair/typebox';
import { enumOf } from '../../util/schema-builders.js';
import { closed } from './parts.js';

/** Configuration keys for the sandbox and data folders, the demo database, the outputs watcher and logs. */

export const sandboxSchema = Type.Object(
  {
    root: Type.String({
      minLength: 1,
      default: 'sandbox',
      description: 'Sandbox root folder. Holds the .spillway-sandbox marker and one folder per conversation.',
    }),
  },
  { ...closed, description: 'Where spilled results, argument files, scripts and outputs live.' },
);

export const dataSchema = Type.Object(
  {
    dir: Type.String({ minLength: 1, default: 'data', description: 'Folder for the execution record (records.jsonl) and the embedded demo database.' }),
  },
  { ...closed, description: 'Host state that is not conversation data.' },
);

export const demoSchema = Type.Object(
  {
    rows: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 50_000, description: 'Transactions generated on first start.' }),
    seed: Type.Integer({ default: 20_261_130, description: 'Seed of the generator; the same seed gives the same data.' }),
  },
  { ...closed, description: 'The embedded demo database.' },
);

export const watchSchema = Type.Object(
  {
    maxWatchedFolders: Type.Integer({
      minimum: 0,
      default: 4096,
      description:
        'Folders the outputs watcher follows with a kernel watch (one inotify watch each: the sandbox root, conversation folders, outputs/ and its sub-folders); folders past this are polled.',
    }),
    pollIntervalMs: Type.Integer({
      minimum: 100,
      default: 2000,
      description:
        'How often folders past maxWatchedFolders are looked at (ms). Polling sees files that appear (or are renamed into place), not files rewritten in place.',
    }),
    outputsDepth: Type.Integer({
      minimum: 0,
      maximum: 16,
      default: 3,
      description: 'Levels of sub-folders under outputs/ that are watched; files deeper down are not announced.',
    }),
  },
  { ...closed, description: 'The outputs watcher of `spillway serve`: files that appear in outputs/ by any route are announced to the conversation.' },
);

export const logSchema = Type.Object(
  {
    level: enumOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  },
  { ...closed, description: 'Structured JSON logs on stderr.' },
);
