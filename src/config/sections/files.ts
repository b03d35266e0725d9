import { Type } from '@sinclair/typebox';
import { closed } from './parts.js';

/** Configuration keys for file-building workers, their documents and the execution records. */

export const documentsSchema = Type.Object(
  {
    maxTableRows: Type.Integer({
      minimum: 1,
      default: 5000,
      description: 'Rows one document table may hold (documents get slow to open past a few thousand); above it use export_table.',
    }),
  },
  { ...closed, description: 'DOCX and PPTX building.' },
);

export const workersSchema = Type.Object(
  {
    poolSize: Type.Integer({ minimum: 0, default: 0, description: 'Worker threads; 0 means one per CPU core.' }),
    maxQueue: Type.Integer({ minimum: 1, default: 64, description: 'Tasks that may wait for a free worker before new ones are refused.' }),
    taskTimeoutMs: Type.Integer({ minimum: 1000, default: 600_000, description: 'A file build running longer is stopped and its call fails.' }),
  },
  { ...closed, description: 'The worker-thread pool that builds files.' },
);

export const recordsSchema = Type.Object(
  {
    maxArgsBytes: Type.Integer({
      minimum: 256,
      default: 65_536,
      description: "Arguments larger than this are stored as a size and a preview, with the arguments file's path beside them.",
    }),
  },
  { ...closed, description: 'The execution record (data/records.jsonl): one line per call with arguments as called and as executed.' },
);
