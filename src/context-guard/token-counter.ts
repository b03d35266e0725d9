/** Counts the tokens of a text the way the guard measures a prompt. */
export interface TokenCounter {
  /** "o200k_base", "cl100k_base", or "bytes/1.84" for the byte estimate. */
  readonly name: string;
  count(text: string): number;
}

/**
 * Bytes per token when the model's tokenizer is unknown: the seed's measured
 * ratio for JSON-heavy prompts (14.7 MB came to about 7.97 million tokens).
 * Prose runs near 4 bytes a token, so this over-counts prose: the guard may act
 * a little early, never late.
 */
export const pessimisticBytesPerToken = 1.84;

export function byteRatioCounter(bytesPerToken = pessimisticBytesPerToken): TokenCounter {
  if (!(bytesPerToken > 0)) throw new RangeError(`bytesPerToken must be a positive number (got ${bytesPerToken}).`);
  return { name: `bytes/${bytesPerToken}`, count: (text) => Math.ceil(Buffer.byteLength(text) / bytesPerToken) };
}

export type KnownEncoding = 'o200k_base' | 'cl100k_base';

/** The encoding of an OpenAI model id, when its tokenizer is known. */
export function encodingForModel(modelId: string): KnownEncoding | undefined {
  const id = modelId.toLowerCase().replace(/^openai[/:.]/, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(id)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5)/.test(id)) return 'cl100k_base';
  return undefined;
}

/**
 * A counter with the model's own tokenizer (gpt-tokenizer) where it is known,
 * else the pessimistic byte estimate. The encoding is loaded on first use.
 */
export async function counterForModel(modelId: string | undefined): Promise<TokenCounter> {
  const encoding = modelId === undefined ? undefined : encodingForModel(modelId);
  if (encoding === undefined) return byteRatioCounter();
  const module = (encoding === 'o200k_base' ? await import('gpt-tokenizer/encoding/o200k_base') : await import('gpt-tokenizer/encoding/cl100k_base')) as {
    countTokens(text: string): number;
  };
  return { name: encoding, count: (text) => module.countTokens(text) };
}

/**
 * Remembers the count of recent texts: an agent loop re-sends the same tool
 * results on every call, and a real tokenizer costs ~0.4 µs a token.
 */
export function memoizedCounter(counter: TokenCounter, maxEntries = 2048): TokenCounter {
  const cache = new Map<string, number>();
  return {
    name: counter.name,
    count(text) {
      if (text.length < 256) return counter.count(text);
      const known = cache.get(text);
      if (known !== undefined) return known;
      const counted = counter.count(text);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(text, counted);
      return counted;
    },
  };
}
