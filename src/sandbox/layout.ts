import { SpillwayError } from '../errors.js';

/** The file whose presence marks a folder as a spillway sandbox root. */
export const sandboxMarker = '.spillway-sandbox';

/** The folders of one conversation, in the order list_files shows them. */
export const conversationFolders = ['results', 'errors', 'args', 'scripts', 'outputs'] as const;
export type ConversationFolder = (typeof conversationFolders)[number];

/** Folders the retention sweep may delete from; outputs/ holds attachments and is never expired. */
export const expiringFolders: readonly ConversationFolder[] = ['results', 'errors', 'args', 'scripts'];

/** Suffix of the metadata file written beside each spill. */
export const metadataSuffix = '.meta.json';

/** The principal of a caller nobody authenticated: stdio, `server.auth` none, a library call without one. */
export const defaultPrincipal = 'local';

/** Folders are created owner-only: folder names are not secrets, permissions are. */
export const folderMode = 0o700;
/** Files are created owner-only (spills, sidecars, outputs, arguments files, the execution record). */
export const fileMode = 0o600;

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Principals may also hold "@" (an e-mail-like name from a token; src/auth/principal-name.ts accepts it). */
const principalPattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

/** Why a name cannot be a folder name, or undefined when it can. */
export function folderNameProblem(
  name: unknown,
  kind: 'conversation' | 'principal' = 'conversation',
): 'not-a-string' | 'empty' | 'too-long' | 'first-character' | 'characters' | 'dot-dot' | undefined {
  if (typeof name !== 'string') return 'not-a-string';
  if (name.length === 0) return 'empty';
  if (name.length > 128) return 'too-long';
  if (!/^[A-Za-z0-9]/.test(name)) return 'first-character';
  if (!(kind === 'principal' ? principalPattern : namePattern).test(name)) return 'characters';
  if (name.includes('..')) return 'dot-dot';
  return undefined;
}

const nameRule = '1-128 letters, digits, ".", "_" or "-", starting with a letter or digit, with no ".."';

/** Conversation ids come from the request context; they still become folder names, so check them. */
export function assertConversationId(id: string): void {
  const reason = folderNameProblem(id);
  if (reason !== undefined) {
    throw new SpillwayError('CONVERSATION_INVALID', `Conversation id ${JSON.stringify(String(id).slice(0, 80))} is not usable: it must be ${nameRule}.`, {
      conversationId: String(id).slice(0, 200),
      reason,
    });
  }
}

const principalRule = '1-128 letters, digits, ".", "_", "@" or "-", starting with a letter or digit, with no ".."';

/** Principal names come from auth or the library context and name a folder under the root: the rule of conversation ids, plus "@". */
export function assertPrincipal(principal: string): void {
  const reason = folderNameProblem(principal, 'principal');
  if (reason !== undefined) {
    throw new SpillwayError('PRINCIPAL_INVALID', `Principal ${JSON.stringify(String(principal).slice(0, 80))} is not usable as a folder name: it must be ${principalRule}.`, {
      principal: String(principal).slice(0, 200),
      reason,
    });
  }
}

/** Whether a name is usable as a conversation folder name. */
export function isFolderName(name: string): boolean {
  return folderNameProblem(name) === undefined;
}

/** Whether a name is usable as a principal folder name. */
export function isPrincipalName(name: string): boolean {
  return folderNameProblem(name, 'principal') === undefined;
}

export function isConversationFolder(name: string): name is ConversationFolder {
  return (conversationFolders as readonly string[]).includes(name);
}

/**
 * Folders from the sandbox root down to a conversation folder: 2 for
 * <root>/<principal>/<conversation>. Whatever walks the tree from the root
 * (the outputs watcher) reads the depth here.
 */
export const conversationDepth = 2;
