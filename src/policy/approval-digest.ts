import { createHash } from 'node:crypto';
import type { ConversationSandbox } from '../sandbox/index.js';

/** Arguments whose pretty JSON is longer than this are not put in the prompt whole. */
export const maxShownArgumentChars = 8000;

/** What the user approves: the exact bytes that will be sent, their digest, and where to see them when too large to show. */
export interface ApprovalDigest {
  /** SHA-256 (hex) of `text`. */
  sha256: string;
  /** Bytes of `text`. */
  bytes: number;
  /** The arguments as compact JSON: what is hashed, and (parsed back) what runs. */
  text: string;
  /** True when the prompt shows every byte of the arguments. */
  shownInFull: boolean;
  /** When not shown in full: the file under outputs/ holding the full arguments (pretty JSON), relative to the conversation. */
  argumentsFile?: string;
}

/**
 * Computes the digest of the arguments a call will send, once. The call then
 * runs with the arguments parsed back from exactly these bytes, so the
 * digest approved is the digest executed: nothing between the prompt and the
 * handler can change what is sent. When the arguments are too large to show,
 * they are written in full to outputs/approvals/ so the user can read all of
 * it before deciding.
 */
export async function digestForApproval(input: { arguments: unknown; callId: string; tool: string; sandbox: ConversationSandbox }): Promise<ApprovalDigest> {
  const text = JSON.stringify(input.arguments ?? {});
  const digest: ApprovalDigest = {
    sha256: sha256Hex(text),
    bytes: Buffer.byteLength(text),
    text,
    shownInFull: JSON.stringify(input.arguments ?? {}, null, 2).length <= maxShownArgumentChars,
  };
  if (!digest.shownInFull) {
    const name = `outputs/approvals/${safeName(input.callId)}-${safeName(input.tool)}.json`;
    try {
      const written = await input.sandbox.writeFile(name, `${JSON.stringify(input.arguments ?? {}, null, 2)}\n`, { folders: ['outputs'], pickFreeName: true });
      digest.argumentsFile = written.relative;
    } catch {
      // The prompt then says that the full arguments could not be saved; the digest still binds the call.
    }
  }
  return digest;
}

/** The arguments that run: parsed back from the approved bytes. */
export function approvedArguments(digest: ApprovalDigest): unknown {
  return JSON.parse(digest.text) as unknown;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function safeName(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      .replace(/^[._-]+/, '')
      .slice(0, 80) || 'call'
  );
}
