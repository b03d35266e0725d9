export { SandboxRoot } from './sandbox-root.js';
export { ConversationSandbox, expiredLogName, type ExpiryLookup, type OpenedFile, type ResolvedPath, type PathRules } from './conversation-sandbox.js';
export { checkRelativePath } from './check-path.js';
export {
  createPendingFile,
  writeFileAtomic,
  publishSmallFileSync,
  smallFileBytes,
  isTempName,
  tempNamePrefix,
  numberedName,
  type CreateOptions,
  type PendingFile,
  type PublishOptions,
  type SmallPublish,
} from './atomic-write.js';
export * from './layout.js';
export { PinnedFolder, isRedirectRefusal } from './pinned-folder.js';
export { readSidecar } from './read-sidecar.js';
export { completeSandboxPath, listEntries, type SandboxEntry } from './list-entries.js';
export { isPublishTempName, repairPublishLink, type FileIdentity } from './publish-leftovers.js';
export { readBounded } from './read-bounded.js';
export { assertCurrentLayout, findOldLayout, migratingPrefix } from './old-layout.js';
export { migrateLayout, type MigrationOptions, type MigrationStep } from './migrate-layout.js';
export { asDiskError, diskFaultCode, isDiskFault, toDiskError, toDiskErrorFromText, withoutHostPaths, type DiskErrorContext, type DiskFaultCode } from './disk-errors.js';
export { findPublished, isJobId, jobMarkerName, markBeforeLink, removeJobMarker } from './publish-once.js';
