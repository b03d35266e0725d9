import { ContextGuard, type ContextGuardOptions, type ResultSpiller } from '../context-guard/context-guard.js';
import type { GuardReport } from '../context-guard/guard-report.js';
import { hostSpiller } from '../context-guard/host-spiller.js';
import { counterForModel } from '../context-guard/token-counter.js';
import type { Host } from '../host/host.js';
import { applyToSdkPrompt, sdkPrompt, type SdkMessage } from './sdk-prompt.js';

export interface SpillwayContextGuardOptions extends Omit<ContextGuardOptions, 'spill'> {
  /** With conversationId: results without a reference are written to this host's sandbox before they are replaced. */
  host?: Host;
  conversationId?: string;
  /** The conversation's principal (default "local"), as given to spillwayTools. */
  principal?: string;
  /** Or any other way to write such results (wins over host). */
  spill?: ResultSpiller;
}

/** The part of the AI SDK's LanguageModelMiddleware the guard implements (v3 in ai 6; ai 7 accepts v3 middleware too). */
export interface SpillwayGuardMiddleware {
  readonly specificationVersion: 'v3';
  transformParams<Params extends { prompt: readonly SdkMessage[] }>(options: {
    type: 'generate' | 'stream';
    params: Params;
    model: { modelId: string };
  }): PromiseLike<Params>;
  /** The report of the last model call. */
  readonly lastReport: GuardReport | undefined;
}

/**
 * The context guard as AI SDK language-model middleware: before each model
 * call it measures the prompt (the model's tokenizer for OpenAI model ids,
 * else 1.84 bytes a token) and, past `share` (0.85) of `contextWindow`,
 * replaces earlier tool results by their spill references, largest first,
 * never the last turn, the same bytes for the same input. It works on a copy:
 * the application's messages keep the full results.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: spillwayContextGuard({ contextWindow: 128_000, host, conversationId }) });
 */
export function spillwayContextGuard(options: SpillwayContextGuardOptions): SpillwayGuardMiddleware {
  const spill =
    options.spill ??
    (options.host !== undefined && options.conversationId !== undefined
      ? hostSpiller(options.host, { conversationId: options.conversationId, ...(options.principal === undefined ? {} : { principal: options.principal }) })
      : undefined);
  // One guard per model id: each counts with its own tokenizer and keeps its own replacements.
  const guards = new Map<string, Promise<ContextGuard>>();
  let lastReport: GuardReport | undefined;
  const guardFor = (modelId: string): Promise<ContextGuard> => {
    let guard = guards.get(modelId);
    if (guard === undefined) {
      guard = (async () => {
        const counter = options.counter ?? (await counterForModel(modelId));
        return new ContextGuard({
          ...options,
          counter,
          ...(spill === undefined ? {} : { spill }),
          onReport: (report) => {
            lastReport = report;
            options.onReport?.(report);
          },
        });
      })();
      guards.set(modelId, guard);
    }
    return guard;
  };
  // Validate the options now rather than at the first model call.
  new ContextGuard({ ...options, counter: options.counter ?? { name: 'check', count: () => 0 } });
  return {
    specificationVersion: 'v3',
    get lastReport() {
      return lastReport;
    },
    async transformParams({ params, model }) {
      const guard = await guardFor(model.modelId);
      const { replacements } = await guard.plan(sdkPrompt(params.prompt));
      if (replacements.size === 0) return params;
      return { ...params, prompt: applyToSdkPrompt(params.prompt, replacements) };
    },
  };
}
