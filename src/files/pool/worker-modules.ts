import type { WorkerKind } from './worker-task.js';

/**
 * The piscina entry module of each format, as URL literals so tools and editors
 * can follow them. Compiled, they sit in dist/workers/, three folders up from
 * dist/src/files/pool/.
 */
export const workerModules: Readonly<Record<WorkerKind, URL>> = {
  csv: new URL('../../../workers/csv.js', import.meta.url),
  xlsx: new URL('../../../workers/xlsx.js', import.meta.url),
  docx: new URL('../../../workers/docx.js', import.meta.url),
  pptx: new URL('../../../workers/pptx.js', import.meta.url),
  markdown: new URL('../../../workers/markdown.js', import.meta.url),
};
