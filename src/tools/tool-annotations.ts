import type { ToolAnnotations } from '../host/tool.js';

/** A tool that only reads the conversation's files. */
export function readsOnly(title: string): ToolAnnotations {
  return { title, readOnlyHint: true };
}

/** A tool that writes a new file into the sandbox (an output, a script's writes): it changes nothing that exists and reaches nothing outside. */
export function writesNewFile(title: string): ToolAnnotations {
  return { title, readOnlyHint: false, destructiveHint: false, openWorldHint: false };
}
