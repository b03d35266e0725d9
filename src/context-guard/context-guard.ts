import { createHash } from 'node:crypto';
import type { GuardReport, ReplacedResult } from './guard-report.js';
import type { GuardPrompt, ToolResultSlot } from './guard-prompt.js';
import { describeFacts, findReference, replacementText, type ReferenceFacts } from './reference-text.js';
import { byteRatioCounter, memoizedCounter, type TokenCounter } from './token-counter.js';

/** Writes a result that has no reference yet to the sandbox and returns the file's facts (undefined: could not). */
export type ResultSpiller = (result: { toolCallId: string; toolName: string; value: unknown; isError: boolean }) => Promise<ReferenceFacts | undefined>;

export interface ContextGuardOptions {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Act when the prompt passes this share of the window. Default 0.85. */
  share?: number;
  /** How to count tokens. Default: the pessimistic byte estimate (1.84 bytes a token). */
  counter?: TokenCounter;
  /** Writes results that carry no spill reference (e.g. a host's own tools); without it such results are never replaced. */
  spill?: ResultSpiller;
  /** Called after every pass with what it did. */
  onReport?: (report: GuardReport) => void;
}

/** Tokens a message costs beyond its content (role, separators), as chat formats count them. */
const tokensPerMessage = 4;

interface Replacement {
  text: string;
  path?: string;
  spilled: boolean;
}

/**
 * The pre-model-call context guard. Before a call it measures the prompt; past
 * `share` of the context window it replaces earlier tool results by their
 * spill references (largest first, then oldest), never the last turn. The
 * replacement of a result is computed once and reused, so the same input
 * gives the same bytes on every call and the provider's prompt cache keeps
 * hitting. When even replacing every earlier result cannot fit the prompt, it
 * says so and changes nothing (it never cuts a record in half).
 */
export class ContextGuard {
  readonly contextWindow: number;
  readonly share: number;
  private readonly counter: TokenCounter;
  private readonly spill: ResultSpiller | undefined;
  private readonly onReport: ((report: GuardReport) => void) | undefined;
  /** toolCallId + digest of the result → its replacement: the set only grows. */
  private readonly replacements = new Map<string, Replacement>();

  constructor(options: ContextGuardOptions) {
    if (!Number.isInteger(options.contextWindow) || options.contextWindow <= 0) {
      throw new RangeError(`contextWindow must be a positive integer number of tokens (got ${options.contextWindow}).`);
    }
    const share = options.share ?? 0.85;
    if (!(share > 0 && share <= 1)) throw new RangeError(`share must be a number in (0, 1] (got ${share}).`);
    this.contextWindow = options.contextWindow;
    this.share = share;
    // A byte count is cheaper than a cache lookup; a tokenizer is not.
    this.counter =
      options.counter === undefined || options.counter.name.startsWith('bytes/') ? (options.counter ?? byteRatioCounter()) : memoizedCounter(options.counter);
    this.spill = options.spill;
    this.onReport = options.onReport;
  }

  get budget(): number {
    return Math.floor(this.contextWindow * this.share);
  }

  /** Decides what to replace in one prompt: slot (message, part) → replacement text. Empty unless the report says "replaced". */
  async plan(prompt: GuardPrompt): Promise<{ replacements: Map<ToolResultSlot, string>; report: GuardReport }> {
    const { total, slotTokens } = this.measure(prompt);
    const budget = this.budget;
    const base = { counter: this.counter.name, contextWindow: this.contextWindow, budget, tokensBefore: total, tokensAfter: total, replaced: [] };
    if (total <= budget) return this.finish(new Map(), { ...base, action: 'none', message: `The prompt fits: ${total} of ${budget} tokens.` });

    const candidates = prompt.slots.filter((slot) => slot.messageIndex < prompt.lastTurnStart);
    const floor = this.floorAfterReplacing(total, candidates, slotTokens);
    if (floor > budget) {
      const lastTurn = prompt.slots.filter((slot) => slot.messageIndex >= prompt.lastTurnStart).reduce((sum, slot) => sum + (slotTokens.get(slot) ?? 0), 0);
      const message =
        `The prompt needs ${total} tokens against a budget of ${budget} (${this.share} of ${this.contextWindow}); replacing every earlier tool result ` +
        `would still leave about ${floor}${lastTurn > 0 ? `, ${lastTurn} of them in tool results of the last turn, which the guard never changes` : ''}. ` +
        'The prompt was left unchanged.';
      return this.finish(new Map(), { ...base, action: 'over-budget', message });
    }

    const { chosen, replaced, tokensAfter } = await this.choose(this.order(candidates, slotTokens), slotTokens, total);
    if (tokensAfter > budget) {
      const message = `Replacing ${replaced.length} earlier tool results would leave ${tokensAfter} tokens against a budget of ${budget}; the rest cannot be replaced (no reference, or the last turn). The prompt was left unchanged.`;
      return this.finish(new Map(), { ...base, action: 'over-budget', message });
    }
    const message = `Replaced ${replaced.length} tool result${replaced.length === 1 ? '' : 's'} by ${replaced.length === 1 ? 'its reference' : 'their references'}: ${total} → ${tokensAfter} tokens (budget ${budget}).`;
    return this.finish(chosen, { ...base, action: 'replaced', tokensAfter, replaced, message });
  }

  /** The prompt's tokens: every message's overhead, every other part, every tool result (kept per slot). */
  private measure(prompt: GuardPrompt): { total: number; slotTokens: Map<ToolResultSlot, number> } {
    const slotTokens = new Map<ToolResultSlot, number>();
    let total = tokensPerMessage * prompt.messageCount;
    for (const text of prompt.otherTexts) total += this.counter.count(text);
    for (const slot of prompt.slots) {
      const tokens = this.counter.count(slot.text);
      slotTokens.set(slot, tokens);
      total += tokens;
    }
    return { total, slotTokens };
  }

  /** About what the prompt would cost with every candidate replaced by a reference: can it fit at all? */
  private floorAfterReplacing(total: number, candidates: ToolResultSlot[], slotTokens: Map<ToolResultSlot, number>): number {
    let floor = total;
    for (const slot of candidates) {
      const tokens = slotTokens.get(slot) ?? 0;
      floor -= tokens - Math.min(tokens, this.estimateReplacement(slot));
    }
    return floor;
  }

  /** Replaces results in `order` until the prompt fits the budget (or none is left). */
  private async choose(
    order: ToolResultSlot[],
    slotTokens: Map<ToolResultSlot, number>,
    total: number,
  ): Promise<{ chosen: Map<ToolResultSlot, string>; replaced: ReplacedResult[]; tokensAfter: number }> {
    const chosen = new Map<ToolResultSlot, string>();
    const replaced: ReplacedResult[] = [];
    let current = total;
    for (const slot of order) {
      if (current <= this.budget) break;
      const replacement = await this.replacementFor(slot);
      if (replacement === undefined) continue;
      const before = slotTokens.get(slot) ?? 0;
      const after = this.counter.count(replacement.text);
      if (after >= before) continue;
      chosen.set(slot, replacement.text);
      current -= before - after;
      const { toolCallId, toolName, messageIndex } = slot;
      replaced.push({
        toolCallId,
        toolName,
        messageIndex,
        tokensBefore: before,
        tokensAfter: after,
        spilled: replacement.spilled,
        ...(replacement.path === undefined ? {} : { path: replacement.path }),
      });
    }
    return { chosen, replaced, tokensAfter: current };
  }

  private finish(replacements: Map<ToolResultSlot, string>, report: GuardReport): { replacements: Map<ToolResultSlot, string>; report: GuardReport } {
    this.onReport?.(report);
    return { replacements, report };
  }

  /** Results replaced before come first (the set only grows), then the largest, then the oldest. */
  private order(candidates: ToolResultSlot[], tokens: Map<ToolResultSlot, number>): ToolResultSlot[] {
    const seen = new Map(candidates.map((slot) => [slot, this.replacements.has(this.key(slot)) ? 0 : 1]));
    const known = (slot: ToolResultSlot) => seen.get(slot) ?? 1;
    return [...candidates].sort(
      (a, b) =>
        known(a) - known(b) ||
        (tokens.get(b) ?? 0) - (tokens.get(a) ?? 0) ||
        a.messageIndex - b.messageIndex ||
        a.partIndex - b.partIndex ||
        (a.toolCallId < b.toolCallId ? -1 : a.toolCallId > b.toolCallId ? 1 : 0),
    );
  }

  private readonly keys = new WeakMap<ToolResultSlot, string>();

  private key(slot: ToolResultSlot): string {
    let key = this.keys.get(slot);
    if (key === undefined) {
      key = `${slot.toolCallId}\u0000${createHash('sha1').update(slot.text).digest('base64')}`;
      this.keys.set(slot, key);
    }
    return key;
  }

  private estimateReplacement(slot: ToolResultSlot): number {
    const reference =
      findReference(slot.text)?.sentence ??
      describeFacts({ path: `results/0000-${slot.toolName}.jsonl`, format: 'jsonl', bytes: 999_999_999, rows: 9_999_999, columns: [] });
    return this.counter.count(replacementText(slot.toolName, slot.toolCallId, reference));
  }

  private async replacementFor(slot: ToolResultSlot): Promise<Replacement | undefined> {
    const key = this.key(slot);
    const cached = this.replacements.get(key);
    if (cached !== undefined) return cached;
    let replacement: Replacement | undefined;
    const existing = findReference(slot.text);
    if (existing !== undefined) {
      replacement = { text: replacementText(slot.toolName, slot.toolCallId, existing.sentence), path: existing.path, spilled: false };
    } else if (this.spill !== undefined) {
      const facts = await this.spill({ toolCallId: slot.toolCallId, toolName: slot.toolName, value: slot.value, isError: slot.isError }).catch(() => undefined);
      if (facts !== undefined) replacement = { text: replacementText(slot.toolName, slot.toolCallId, describeFacts(facts)), path: facts.path, spilled: true };
    }
    if (replacement !== undefined) this.replacements.set(key, replacement);
    return replacement;
  }
}
