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

const conversationIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Conversation ids come from the request context; they still become folder names, so check them. */
export function assertConversationId(id: string): void {
  if (!conversationIdPattern.test(id) || id.includes('..')) {
    throw new SpillwayError(
      'CONVERSATION_INVALID',
      `Conversation id ${JSON.stringify(id.slice(0, 80))} is not usable: it must be 1-128 letters, digits, ".", "_" or "-", start with a letter or digit and contain no "..".`,
      { conversationId: id.slice(0, 200) },
    );
  }
}

export function isConversationFolder(name: string): name is ConversationFolder {
  return (conversationFolders as readonly string[]).includes(name);
}

/**
 * Folders from the sandbox root down to a conversation folder: 1 for
 * <root>/<conversation>. Whatever walks the tree from the root (the outputs
 * watcher) reads the depth here, so a layout with one more level
 * (<root>/<principal>/<conversation>) changes this one line.
 */
export const conversationDepth = 1;
