import type { Config } from '../config/schema.js';
import type { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import type { SpillRef } from '../spill/spill-ref.js';
import type { Attachment } from './tool.js';

/** What an after-spill hook learns about one call whose result was written to files. */
export interface SpillWritten {
  /** The conversation the files were written in. */
  sandbox: ConversationSandbox;
  /** The spilled result and its binary parts, just written (paths relative to the conversation folder). */
  files: SpillRef[];
  /** The running configuration (a quota reads its limits here, so a reload applies). */
  config: Config;
  logger: Logger;
}

/** What an outputs hook learns about one call that placed files in outputs/. */
export interface OutputsWritten {
  sandbox: ConversationSandbox;
  /** The tool that produced the files: for a delegating call, the target that ran. */
  tool: { name: string; origin?: 'local' | { upstream: string } };
  /** The tool the model called, when that was a delegating call to `tool`. */
  calledAs?: string;
  /** The download cards, as the tool (or an earlier hook) made them. */
  attachments: Attachment[];
  /** The running configuration (read it here, so a reload applies). */
  config: Config;
  logger: Logger;
}

/**
 * Work a higher layer does on a call's outputs before the call returns; it
 * returns the cards to hand out (downloads records the producing tool and adds a signed link).
 */
export type OutputsHook = (outputs: OutputsWritten) => Promise<Attachment[]> | Attachment[];

/** One health check: resolves when this replica can serve, throws (with a reason) when not. */
export type HealthCheck = () => Promise<void>;

/** Work a higher layer does after a spill, before the call returns (retention's disk quota registers one). */
export type AfterSpillHook = (spill: SpillWritten) => Promise<void> | void;

/** Explains a call to a tool that is not registered (yet), with a better error than TOOL_NOT_FOUND; undefined when it cannot. */
export type MissingToolExplainer = (name: string) => SpillwayError | undefined;

/** Runs the after-spill hooks in turn; a failing hook is logged and the result kept. */
export async function runAfterSpillHooks(hooks: readonly AfterSpillHook[], spill: SpillWritten): Promise<void> {
  for (const hook of [...hooks]) {
    try {
      await hook(spill);
    } catch (error) {
      spill.logger.warn({ err: error }, 'an after-spill hook failed; the result was kept');
    }
  }
}

/** Runs the outputs hooks in turn, each on the cards the one before returned; a failing hook leaves the cards as they were. */
export async function runOutputsHooks(hooks: readonly OutputsHook[], outputs: OutputsWritten): Promise<Attachment[]> {
  let cards = outputs.attachments;
  if (cards.length === 0) return cards;
  for (const hook of [...hooks]) {
    try {
      cards = await hook({ ...outputs, attachments: cards });
    } catch (error) {
      outputs.logger.warn({ err: error }, 'an outputs hook failed; the download cards were kept as they were');
    }
  }
  return cards;
}
