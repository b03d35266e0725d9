/** One tool result the guard replaced by its reference. */
export interface ReplacedResult {
  toolCallId: string;
  toolName: string;
  /** Position of the message that holds it. */
  messageIndex: number;
  /** Tokens of the result before and of its replacement after. */
  tokensBefore: number;
  tokensAfter: number;
  /** The sandbox file the replacement points to, when known. */
  path?: string;
  /** True when the guard wrote the file itself (the result had no reference). */
  spilled: boolean;
}

/** What one guard pass did, for logs and metrics. */
export interface GuardReport {
  /** none: under budget; replaced: results replaced and the prompt now fits; over-budget: no replacement could fit it, prompt unchanged. */
  action: 'none' | 'replaced' | 'over-budget';
  /** How tokens were counted: a tokenizer name or "bytes/1.84". */
  counter: string;
  contextWindow: number;
  /** floor(contextWindow × share). */
  budget: number;
  tokensBefore: number;
  tokensAfter: number;
  replaced: ReplacedResult[];
  /** A sentence for logs; for over-budget it says why nothing was changed. */
  message: string;
}
