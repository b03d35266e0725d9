export { SandboxRoot } from './sandbox-root.js';
export { ConversationSandbox, expiredLogName, type OpenedFile, type ResolvedPath, type PathRules } from './conversation-sandbox.js';
export { checkRelativePath } from './check-path.js';
export { createPendingFile, writeFileAtomic, isTempName, numberedName, type CreateOptions, type PendingFile, type PublishOptions } from './atomic-write.js';
export * from './layout.js';
export { PinnedFolder, isRedirectRefusal } from './pinned-folder.js';
export { readSidecar } from './read-sidecar.js';
export { isPublishTempName, repairPublishLink, type FileIdentity } from './publish-leftovers.js';
export { readBounded } from './read-bounded.js';
