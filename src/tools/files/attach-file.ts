import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Type } from '../../util/type-builder.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolContext } from '../../host/tool.js';
import { describeAttachment } from '../../outputs/attachments.js';
import { asDiskError, createPendingFile, metadataSuffix } from '../../sandbox/index.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { parseJsonSafely } from '../../util/safe-json.js';
import { redactionNotes } from './redaction-note.js';
import { renameNote, sizeText } from './describe-output.js';
import { outputFilename } from './output-name.js';
import { attachFileOutput } from './file-tool-output.js';
import { writesNewFile } from '../tool-annotations.js';

/** attach_file: a sandbox file copied as is into outputs/, for "just give me the file". */
export const attachFileTool = defineTool({
  name: 'attach_file',
  outputSchema: attachFileOutput,
  description: [
    'Give the user a file from the sandbox exactly as it is (e.g. the full JSONL spill "results/0007-query_sql.jsonl", a script, a JSON result): it is copied into outputs/ and attached as a download.',
    'Pass the path; never read the file and retype it. Outputs are kept when old results expire.',
    'To change the format (CSV, Excel) use export_table instead. filename is a plain name with the same extension; a taken name gets a new one, which is reported.',
  ].join(' '),
  inputSchema: Type.Object(
    {
      path: Type.String({ minLength: 1, description: 'Sandbox path of the file, e.g. "results/0007-query_sql.jsonl".' }),
      filename: Type.Optional(Type.String({ minLength: 1, description: "Plain file name for outputs/. Default: the file's own name." })),
    },
    { additionalProperties: false },
  ),
  spill: false,
  annotations: writesNewFile('Attach a sandbox file'),
  async handler(args, context) {
    const { sandbox } = context;
    const file = await sandbox.openRead(args.path);
    let finalPath: string;
    let requestedName: string | undefined;
    try {
      const extension = path.posix.extname(file.relative).slice(1).toLowerCase();
      const filename =
        extension === ''
          ? outputFilename({ requested: args.filename ?? path.posix.basename(file.relative), sourcePath: file.relative, extension: 'bin' }).replace(
              /\.bin$/,
              '',
            )
          : outputFilename({ requested: args.filename, sourcePath: file.relative, extension });
      const target = await sandbox.resolveForWrite(`outputs/${filename}`, { folders: ['outputs'] });
      const pending = await createPendingFile(target.absolute).catch((error: unknown) => {
        throw asDiskError(error, { path: target.relative });
      });
      try {
        await pipeline(file.handle.createReadStream({ start: 0, autoClose: false }), pending.stream, { end: false });
        finalPath = await pending.commit({ pickFreeName: true });
      } catch (error) {
        await pending.abort();
        throw asDiskError(error, { path: target.relative });
      }
      if (finalPath !== target.absolute) requestedName = filename;
    } finally {
      await file.handle.close();
    }
    const rows = await spillRows(context.sandbox, file.relative, file.stats.size);
    const attachment = describeAttachment(sandbox, finalPath, file.stats.size, rows);
    const notes = [...renameNote(requestedName, attachment.path), ...(await redactionNotes(context.sandbox, [file.relative]))];
    context.logger.info({ source: file.relative, output: attachment.path, bytes: attachment.bytes }, 'file attached');
    return {
      value: {
        message: `Attached ${file.relative} as ${attachment.path} (${sizeText(attachment.bytes)}). The user gets it as a download; do not repeat its content in your answer.`,
        path: attachment.path,
        bytes: attachment.bytes,
        ...(rows === undefined ? {} : { rows }),
        ...(notes.length > 0 ? { notes } : {}),
      },
      attachments: [attachment],
    };
  },
});

/** Rows of a spilled table, from its metadata, when the metadata is this file's. */
async function spillRows(sandbox: ToolContext['sandbox'], relative: string, bytes: number): Promise<number | undefined> {
  if (!relative.startsWith('results/')) return undefined;
  try {
    const { data } = await sandbox.readFile(relative + metadataSuffix, { maxBytes: 1024 * 1024 });
    const meta = parseJsonSafely(data.toString('utf8'));
    if (isJsonObject(meta) && meta.path === relative && meta.bytes === bytes && typeof meta.rows === 'number') return meta.rows;
  } catch {
    // No metadata (not a spill, or removed): the card simply has no row count.
  }
  return undefined;
}
