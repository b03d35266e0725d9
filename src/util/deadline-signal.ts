/**
 * One abort signal for a task: it aborts when `caller` aborts or when `ms`
 * have passed, whichever comes first. The controller is held here and by the
 * caller's listener (AbortSignal.any's result is held only weakly by its
 * sources on Node 20 and may stop hearing them: a cancelled task then ran to
 * its deadline). Call `done` when the task ends; `timedOut` says which fired.
 */
export function deadlineSignal(caller: AbortSignal | undefined, ms: number): { signal: AbortSignal; timedOut(): boolean; done(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ms);
  const onCallerAbort = () => controller.abort();
  if (caller?.aborted === true) controller.abort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
}
