import type { ToolContext } from '../../host/tool.js';
import { listFilesTool } from '../reread/list-files.js';

/** A script's list() answered by the list_files tool itself, so a script and the model see the same listing. */
export function scriptListFiles(context: ToolContext): (dir: string | undefined) => Promise<unknown[]> {
  return async (dir) => {
    const output = await listFilesTool.handler(dir === undefined ? {} : { dir }, context);
    return (output.value as { files: unknown[] }).files;
  };
}
