import { Type } from '../../util/type-builder.js';
import { defaultFontFamily, fontFamilyPattern } from '../../util/font-family-name.js';
import { integerKey, section } from './parts.js';

/** Configuration keys for file-building workers, their documents and the execution records. */

export const documentsSchema = section('DOCX and PPTX building, and the font family of every built DOCX, PPTX and XLSX.', {
  maxTableRows: integerKey(1, 5000, 'Rows one document table may hold (documents get slow to open past a few thousand); above it use export_table.'),
  fontFamily: Type.String({
    pattern: fontFamilyPattern,
    default: defaultFontFamily,
    description:
      "The one font family of headers and body in DOCX, PPTX and XLSX files (a build_document spec may name another). Not embedded: the reader's office suite needs it or substitutes. Widths are measured for Arial-like letters; with a wider family (Verdana, DejaVu Sans, Courier New) a DOCX or PPTX result notes that long words may wrap.",
  }),
});

export const workersSchema = section('The worker-thread pool that builds files.', {
  poolSize: integerKey(0, 0, 'Worker threads; 0 means one per CPU core.'),
  maxQueue: integerKey(1, 64, 'Tasks that may wait for a free worker before new ones are refused.'),
  taskTimeoutMs: integerKey(1000, 600_000, 'A file build running longer is stopped and its call fails.'),
});

export const recordsSchema = section('The execution record (data/records.jsonl): one line per call with arguments as called and as executed.', {
  maxArgsBytes: integerKey(256, 65_536, "Arguments larger than this are stored as a size and a preview, with the arguments file's path beside them."),
});
