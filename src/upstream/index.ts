export { startUpstreams, type StartUpstreamsOptions } from './start-upstreams.js';
export type { UpstreamTimers, UpstreamTimerKind } from './upstream-timers.js';
export { UpstreamManager, type UpstreamReport } from './upstream-manager.js';
export { UpstreamConnection, type UpstreamState, type UpstreamStatus } from './upstream-connection.js';
export { exposedToolName } from './upstream-tool.js';
