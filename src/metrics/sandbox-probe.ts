import { randomUUID } from 'node:crypto';
import { open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Prefix of the probe files; the sweep and the conversation listing skip dot files in the root. */
export const probePrefix = '.spillway-probe.';

/**
 * Proves the sandbox root takes writes now: creates a small file (exclusive,
 * synced), reads it back and removes it. A full, read-only or hung volume
 * (an NFS server gone) fails or times out here, so the replica reports that it
 * cannot serve instead of failing each spill.
 */
export async function probeSandboxWrite(root: string, timeoutMs = 5_000): Promise<void> {
  const file = path.join(root, `${probePrefix}${process.pid}.${randomUUID()}`);
  const content = `${new Date().toISOString()}\n`;
  const attempt = (async () => {
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      if ((await readFile(file, 'utf8')) !== content) throw new Error(`the probe file ${file} read back different bytes`);
    } finally {
      await unlink(file).catch(() => undefined);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`writing a probe file in ${root} did not finish in ${timeoutMs} ms (is the volume hung?)`)), timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
