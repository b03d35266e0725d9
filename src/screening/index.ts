export type { Finding, FindingCategory, ScreeningReport } from './findings.js';
export { ResultScreener, screenMessage } from './result-screener.js';
export { screeningNotes } from './screening-note.js';
export { screeningPolicy, type ScreeningPolicy, type SecretAction, type InjectionAction } from './screening-policy.js';
export { findSecrets, type SecretKind } from './secret-rules.js';
export { preparePrefilter } from './row-prefilter.js';
export { findSecretsInValue } from './find-secrets-in-value.js';
