import { SpillwayError } from '../errors.js';

/**
 * The operation's outcome, or COORDINATION_UNAVAILABLE (retryable) when the
 * store has not answered within `ms`: for callers that must never stall on a
 * store that is connected but does not answer (a network partition). The
 * operation itself is not cancelled; its late outcome is ignored.
 */
export function withinDeadline<T>(operation: Promise<T>, ms: number, store: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new SpillwayError('COORDINATION_UNAVAILABLE', `The coordination store (${store}) did not answer within ${ms} ms.`, { store, retryable: true }));
    }, ms);
  });
  return Promise.race([operation, deadline]).finally(() => clearTimeout(timer));
}
