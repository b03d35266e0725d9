import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecuteResult, Host } from '../../src/host/host.js';

/** Runs run_script in a conversation and returns the host's result. */
export function runScript(host: Host, code: string, options: { conversationId?: string; args?: unknown } = {}): Promise<ExecuteResult> {
  const args: Record<string, unknown> = { code };
  if (options.args !== undefined) args.args = options.args;
  return host.execute({ name: 'run_script', arguments: args }, { conversationId: options.conversationId ?? 'c1' });
}

/** The `result` member of a successful run's value. */
export function scriptResult(result: ExecuteResult): unknown {
  if (result.isError) throw new Error(`run_script failed: ${result.error?.code} ${result.text}`);
  return (result.value as { result: unknown }).result;
}

/** Every file under `root` (except the skipped folders) with a hash of its content: to prove nothing was touched. */
export async function snapshotTree(root: string, skip: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    const items: Dirent[] = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const item of items) {
      const absolute = path.join(dir, item.name);
      if (skip.some((skipped) => absolute === skipped || absolute.startsWith(skipped + path.sep))) continue;
      if (item.isDirectory()) {
        found.set(`${absolute}/`, 'dir');
        await walk(absolute);
      } else if (item.isSymbolicLink()) {
        found.set(absolute, 'symlink');
      } else {
        const data = await readFile(absolute);
        found.set(absolute, createHash('sha256').update(data).digest('hex'));
      }
    }
  };
  await walk(root);
  return found;
}
