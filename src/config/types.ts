/** The configuration, as described by config/schema.json. Paths are absolute once loaded. */
export type Decision = 'allow' | 'deny' | 'ask';

export interface SpillToolOverride {
  thresholdChars?: number;
  inlineMaxTokens?: number;
  spill?: boolean;
}

export type UpstreamConfig =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; timeoutMs?: number }
  | { url: string; headers?: Record<string, string>; timeoutMs?: number };

export type SqlSource =
  | { type: 'demo' }
  | { type: 'sqlite'; file: string }
  | { type: 'postgres'; url: string };

export interface Config {
  sandbox: { root: string };
  data: { dir: string };
  server: { host: string; port: number; path: string; sessionIdleMs: number };
  spill: { thresholdChars: number; tools: Record<string, SpillToolOverride> };
  inline: { maxTokens: number; bytesPerToken: number };
  errors: { headChars: number; tailChars: number };
  reread: { maxLines: number; maxChars: number; maxLineChars: number; maxMatches: number; maxListEntries: number };
  args: { maxBytes: number };
  drawTable: { maxRows: number };
  documents: { maxTableRows: number };
  workers: { poolSize: number; maxQueue: number; taskTimeoutMs: number };
  records: { maxArgsBytes: number };
  retention: { days: number; cron: string; maxBytes: number; maxBytesPerConversation: number };
  policy: { default: Decision; upstreamDefault: Decision; rules: Record<string, Decision>; approvalTimeoutMs: number };
  upstreams: Record<string, UpstreamConfig>;
  upstream: { timeoutMs: number; reconnectMinMs: number; reconnectMaxMs: number; maxMessageBytes: number };
  script: {
    timeoutMs: number;
    memoryBytes: number;
    stackBytes: number;
    maxReadBytes: number;
    maxWriteBytes: number;
    maxOutputChars: number;
  };
  sql: { source: SqlSource; maxRows: number; maxBytes: number; timeoutMs: number };
  demo: { rows: number; seed: number };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
}

/** A partial configuration as a user writes it: any subset of keys, nested. */
export type ConfigOverrides = { [K in keyof Config]?: Config[K] extends Record<string, unknown> ? Partial<Config[K]> : Config[K] };
