// Waiting on work that a signal may give up on: the waiter is told at once,
// the work itself runs on (it is read-only and bounded where this is used).

/** `work`'s outcome, or, as soon as `signal` aborts (or if it already has), a rejection with `why()`. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, why: () => unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(why());
    if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
