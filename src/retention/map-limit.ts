/**
 * Runs `work` over `items` with at most `limit` calls in flight, keeping the
 * results in order. The sweep uses it so that 100,000 lstat/unlink calls keep
 * libuv's thread pool busy without queuing them all at once.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, runner));
  return results;
}
