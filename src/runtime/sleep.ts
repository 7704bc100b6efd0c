import { setLongTimeout } from './long-timer';

/** Something that can end a wait early; `subscribe` returns the unsubscribe function. */
export interface Interruption {
  subscribe(onInterrupt: () => void): () => void;
}

/** How a wait may end early, and what runs once its timer is set. */
export interface SleepOptions {
  /** Rejects the wait with `cancelError()` as soon as it fires (a cancellation). */
  readonly interruption?: Interruption | undefined;
  readonly cancelError: () => unknown;
  /** Runs once the timer is set; a promise it returns is waited for as well. */
  readonly onSet?: () => unknown;
  /** Ends the wait as if its time had come: subscribes it, and returns the unsubscribe functions. */
  readonly wake?: (wake: () => void) => readonly (() => void)[];
}

/**
 * The one wait of the package: resolves after `ms`, or earlier when `wake` fires, and rejects
 * with `cancelError()` as soon as `interruption` fires (a cancellation). Either way the timer
 * and every listener are gone when it settles, so nothing keeps a process alive. A delay longer
 * than a runtime timer holds is waited in full (chained timers), never cut short.
 *
 * `onSet` runs once the timer is set, so that a test's fake clock can already advance it.
 * What it throws rejects the wait at once; a promise it returns is waited for as well, and its
 * rejection rejects the wait the same way.
 */
export function sleep(
  ms: number,
  { interruption, cancelError, onSet, wake }: SleepOptions,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Clears the timer and removes every listener.
    const release = (): void => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
    // The time being up (or a wake) and onSet's outcome: the wait resolves once both are done.
    let pending = 2;
    const done = (): void => {
      if (--pending > 0) return;
      release();
      resolve();
    };
    let timedOut: true | undefined;
    const timeUp = (): void => {
      if (timedOut) return;
      timedOut = true;
      done();
    };
    // Timers may fire on the whole millisecond below a fractional delay: round up, never wake early.
    const unsubscribes = [setLongTimeout(timeUp, Math.ceil(ms))];
    const fail = (error: unknown): void => {
      release();
      reject(error);
    };
    // A wake ends the wait as if its time had come. It is listened to first, so that an
    // interruption that fires at once (a call already canceled) removes it too.
    if (wake) unsubscribes.push(...wake(timeUp));
    if (interruption) unsubscribes.push(interruption.subscribe(() => fail(cancelError())));
    try {
      const scheduled = onSet?.() as PromiseLike<unknown> | undefined;
      if (typeof scheduled?.then === 'function') scheduled.then(done, fail);
      else done();
    } catch (error) {
      fail(error);
    }
  });
}
