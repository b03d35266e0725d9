import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Host } from '../host/host.js';
import { metadataSuffix } from '../sandbox/layout.js';
import type { SpillRef } from '../spill/spill-ref.js';
import { isJsonObject } from '../util/is-json-object.js';
import { parseJsonSafely } from '../util/safe-json.js';
import type { ResultSpiller } from './context-guard.js';
import type { ReferenceFacts } from './reference-text.js';

/**
 * A spiller that writes results without a reference into one conversation of
 * a spillway host. A result written before (same call id and tool, e.g. by a
 * guard in a process since restarted) is found by its metadata and reused, so
 * its replacement reads the same as before and the prompt cache still hits.
 */
export function hostSpiller(host: Host, options: { conversationId: string; principal?: string }): ResultSpiller {
  return async (result) => {
    const earlier = await findEarlierSpill(host, options, result.toolCallId, result.toolName);
    if (earlier !== undefined) return facts(earlier);
    const ref = await host.spillValue({
      conversationId: options.conversationId,
      ...(options.principal === undefined ? {} : { principal: options.principal }),
      tool: result.toolName,
      callId: result.toolCallId,
      value: result.value,
      isError: result.isError,
    });
    return ref === undefined ? undefined : facts(ref);
  };
}

function facts(ref: Pick<SpillRef, 'path' | 'format' | 'bytes' | 'rows' | 'columns'>): ReferenceFacts {
  return { path: ref.path, format: ref.format, bytes: ref.bytes, rows: ref.rows, columns: ref.columns };
}

async function findEarlierSpill(
  host: Host,
  scope: { conversationId: string; principal?: string },
  callId: string,
  tool: string,
): Promise<SpillRef | undefined> {
  const sandbox = host.sandbox.conversation(scope.conversationId, scope.principal);
  for (const folder of ['results', 'errors'] as const) {
    const dir = sandbox.folderPath(folder);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((entry) => entry.endsWith(metadataSuffix)).sort()) {
      const meta = await readFile(path.join(dir, name), 'utf8')
        .then((text) => parseJsonSafely(text))
        .catch(() => undefined);
      // The data file must still be there (retention may have removed it).
      if (isJsonObject(meta) && meta.callId === callId && meta.tool === tool && typeof meta.path === 'string') {
        if (names.includes(name.slice(0, -metadataSuffix.length))) return meta as unknown as SpillRef;
      }
    }
  }
  return undefined;
}
