import type { ConversationSandbox } from '../../sandbox/index.js';
import { metadataSuffix } from '../../sandbox/layout.js';
import type { SpillRef } from '../../spill/spill-ref.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { parseJsonSafely } from '../../util/safe-json.js';

/**
 * The sentence an export or attachment carries when a source spill had
 * secrets redacted (screening.keep off): the file given to the user holds
 * `[REDACTED:kind]` where the tool's result held the value.
 */
export async function redactionNotes(sandbox: ConversationSandbox, sources: readonly string[]): Promise<string[]> {
  const notes: string[] = [];
  for (const source of sources) {
    const screening = await spillScreening(sandbox, source);
    if (screening === undefined || screening.secrets === 0 || screening.secretAction !== 'redact' || screening.kept === true) continue;
    const kinds = Object.keys(screening.kinds).join(', ');
    notes.push(
      `${source} carries redacted values: ${screening.secrets} secret${screening.secrets === 1 ? '' : 's'} (${kinds}) appear as [REDACTED:kind], not as the tool returned them (screening.secrets: redact; see docs/security.md).`,
    );
  }
  return notes;
}

async function spillScreening(sandbox: ConversationSandbox, relative: string): Promise<SpillRef['screening']> {
  try {
    const { data } = await sandbox.readFile(relative + metadataSuffix, { maxBytes: 4 * 1024 * 1024 });
    const meta = parseJsonSafely(data.toString('utf8'));
    return isJsonObject(meta) && isJsonObject(meta.screening) ? (meta.screening as unknown as SpillRef['screening']) : undefined;
  } catch {
    // No metadata: not a spill, so nothing was redacted.
    return undefined;
  }
}
