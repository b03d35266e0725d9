/** Piscina entry: draw_table's Markdown table; the writing is drawMarkdown in src/files/formats/markdown-writer.ts. */
import { drawMarkdown } from '../src/files/formats/markdown-writer.js';
import { workerTask } from '../src/files/pool/worker-run.js';

export default workerTask(drawMarkdown, { format: 'markdown' });
