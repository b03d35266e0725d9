import type { CallLogEntry } from './call-log.js';
import type { ExecuteResult } from './execute-result.js';

/** What a finished call tells its caller: where the result went, what was cut or screened, why it failed. */
export function callLogEntries(result: ExecuteResult): CallLogEntry[] {
  const entries: CallLogEntry[] = [];
  const { spill, screening, error } = result;
  if (spill !== undefined) {
    const shape = spill.rows === undefined ? '' : `, ${spill.rows} rows × ${spill.columns?.length ?? 0} columns`;
    entries.push({
      level: 'info',
      message: `${result.tool}: result written to ${spill.path} (${spill.bytes} bytes${shape})`,
      data: { callId: result.callId, path: spill.path, bytes: spill.bytes, ...(spill.rows === undefined ? {} : { rows: spill.rows }) },
    });
  }
  for (const file of result.files) {
    entries.push({
      level: 'info',
      message: `${result.tool}: ${file.mimeType ?? 'binary'} part written to ${file.path}`,
      data: { callId: result.callId, path: file.path },
    });
  }
  if (result.truncated) {
    entries.push({
      level: 'notice',
      message: `${result.tool}: the text returned shows part of the result${spill === undefined ? '' : `; all of it is in ${spill.path}`}`,
      data: { callId: result.callId, ...(spill === undefined ? {} : { path: spill.path }) },
    });
  }
  if (screening !== undefined && screening.secrets + screening.injections + screening.invisible > 0) {
    const parts = [
      screening.secrets > 0
        ? `${screening.secrets} secret${screening.secrets === 1 ? '' : 's'} ${screening.secretAction === 'redact' ? 'redacted' : 'flagged'}`
        : '',
      screening.injections > 0 ? `${screening.injections} injected instruction${screening.injections === 1 ? '' : 's'} flagged` : '',
      screening.invisible > 0 ? `${screening.invisible} invisible character run${screening.invisible === 1 ? '' : 's'} shown escaped` : '',
    ].filter((part) => part !== '');
    entries.push({ level: 'warning', message: `${result.tool}: ${parts.join(', ')}`, data: { callId: result.callId, ...screening } });
  }
  for (const attachment of result.attachments) {
    entries.push({
      level: 'info',
      message: `${result.tool}: wrote ${attachment.path} (${attachment.bytes} bytes)`,
      data: { callId: result.callId, path: attachment.path, bytes: attachment.bytes, uri: attachment.uri },
    });
  }
  if (error !== undefined) {
    entries.push({
      level: 'error',
      message: `${result.tool} failed (${error.code}): ${error.message.slice(0, 500)}`,
      data: { callId: result.callId, code: error.code },
    });
  }
  return entries;
}
