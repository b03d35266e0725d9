/**
 * spillway for Vercel AI SDK hosts (`ai` 6 or 7, an optional peer dependency):
 * the host's tools as AI SDK tools, a wrapper that makes any tool's results
 * spill, and the pre-model-call context guard as language-model middleware.
 */
export { spillwayTools, type ConversationContext } from './spillway-tools.js';
export { withSpill, type WithSpillContext } from './with-spill.js';
export { spillwayContextGuard, type SpillwayContextGuardOptions, type SpillwayGuardMiddleware } from './context-guard-middleware.js';
export type { SpillwayToolOutput } from './tool-output.js';
export type { GuardReport, ReplacedResult } from '../context-guard/guard-report.js';
