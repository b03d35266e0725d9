export { SandboxRoot } from './sandbox-root.js';
export { ConversationSandbox, expiredLogName, type OpenedFile, type ResolvedPath, type PathRules } from './conversation-sandbox.js';
export { checkRelativePath } from './check-path.js';
export { createPendingFile, writeFileAtomic, isTempName, numberedName, type PendingFile, type PublishOptions } from './atomic-write.js';
export * from './layout.js';
