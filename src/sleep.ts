import { setLongTimeout } from './long-timer';

/** Something that can end a sleep early; `subscribe` returns the unsubscribe function. */
export interface Interruption {
  subscribe(onInterrupt: () => void): () => void;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * Resolves after `ms`, or rejects with `onInterrupt()`'s error as soon as `interruption` fires.
 * Either way the timer and the listener are gone when it settles, so nothing keeps a process alive.
 * A delay longer than a runtime timer holds is waited in full (chained timers), never cut short.
 * `onScheduled` runs once the timer is set, so a test's fake clock can already advance it. What
 * it throws rejects the sleep at once; a promise it returns is waited for as well, and its
 * rejection rejects the sleep the same way.
 */
export function sleep(
  ms: number,
  interruption: Interruption | undefined,
  interruptedError: () => unknown,
  onScheduled?: () => unknown,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let unsubscribe = (): void => {};
    // The timer and onScheduled's outcome: the sleep resolves once both are done.
    let pending = 2;
    const done = (): void => {
      if (--pending > 0) return;
      unsubscribe();
      resolve();
    };
    // Timers may fire on the whole millisecond below a fractional delay: round up, never wake early.
    const clear = setLongTimeout(done, Math.ceil(ms));
    const fail = (error: unknown): void => {
      clear();
      unsubscribe();
      reject(error);
    };
    if (interruption) unsubscribe = interruption.subscribe(() => fail(interruptedError()));
    try {
      const scheduled = onScheduled?.();
      if (isThenable(scheduled)) scheduled.then(done, fail);
      else done();
    } catch (error) {
      fail(error);
    }
  });
}
