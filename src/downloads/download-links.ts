import type { Host, OutputsWritten } from '../host/host.js';
import type { Attachment } from '../host/tool.js';
import { downloadSettings, type DownloadSettings } from './download-settings.js';
import { downloadPath } from './download-path.js';
import { fileDigest } from './file-digest.js';
import { writeOutputRecord } from './output-record.js';
import { signDownloadLink } from './signed-link.js';

export interface DownloadLinksOptions {
  /** Where server.downloads.signingKeyEnv is read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The clock links are made by (tests); default the system clock. */
  now?: () => Date;
}

/**
 * After every call that placed files in outputs/, records which tool
 * produced each one (with its digest: see output-record.ts), so the download
 * route can check that tool's policy again when the file is fetched, and,
 * when server.publicUrl is set, adds a signed `downloadUrl` to each card.
 * A file that cannot be recorded keeps its card without a link (logged);
 * the route then answers 404 for it. Returns a function that removes the hook.
 */
export function installDownloadLinks(host: Host, options: DownloadLinksOptions = {}): () => void {
  const now = options.now ?? (() => new Date());
  return host.onOutputs(async (outputs) => {
    let settings: DownloadSettings | undefined;
    try {
      settings = downloadSettings(outputs.config, options.env ?? process.env);
    } catch (error) {
      outputs.logger.warn({ err: error }, 'download links are not made: the download settings are unusable');
    }
    const cards: Attachment[] = [];
    for (const attachment of outputs.attachments) {
      try {
        cards.push(await recordAndLink(outputs, attachment, settings, now()));
      } catch (error) {
        outputs.logger.warn({ err: error, path: attachment.path }, 'output not recorded; it cannot be downloaded over HTTP');
        cards.push(attachment);
      }
    }
    return cards;
  });
}

async function recordAndLink(outputs: OutputsWritten, attachment: Attachment, settings: DownloadSettings | undefined, now: Date): Promise<Attachment> {
  const { sandbox } = outputs;
  const file = await sandbox.openRead(attachment.path, { folders: ['outputs'] });
  let sha256: string;
  try {
    sha256 = await fileDigest(file.handle);
  } finally {
    await file.handle.close();
  }
  await writeOutputRecord(sandbox, {
    path: file.relative,
    tool: outputs.tool.name,
    ...(outputs.tool.origin === undefined ? {} : { origin: outputs.tool.origin }),
    ...(outputs.calledAs === undefined ? {} : { calledAs: outputs.calledAs }),
    sha256,
    bytes: file.stats.size,
    mtimeMs: file.stats.mtimeMs,
    recordedAt: now.toISOString(),
  });
  if (settings?.publicUrl === undefined || settings.key === undefined) return attachment;
  const target = { conversationId: sandbox.id, relative: file.relative };
  const { token, expiresAt } = await signDownloadLink(
    { principal: sandbox.principal, conversationId: sandbox.id, path: file.relative, sha256 },
    { key: settings.key, ttlSeconds: settings.linkTtlSeconds, now },
  );
  return { ...attachment, downloadUrl: `${settings.publicUrl}${downloadPath(target)}?sig=${token}`, downloadExpiresAt: expiresAt.toISOString() };
}
