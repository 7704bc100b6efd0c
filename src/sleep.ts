/** Something that can end a sleep early; `subscribe` returns the unsubscribe function. */
export interface Interruption {
  subscribe(onInterrupt: () => void): () => void;
}

/**
 * Resolves after `ms`, or rejects with `onInterrupt()`'s error as soon as `interruption` fires.
 * Either way the timer and the listener are gone when it settles, so nothing keeps a process alive.
 * `onScheduled` runs once the timer is set, so a test's fake clock can already advance it.
 */
export function sleep(
  ms: number,
  interruption: Interruption | undefined,
  interruptedError: () => unknown,
  onScheduled?: () => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let unsubscribe = (): void => {};
    // Timers may fire on the whole millisecond below a fractional delay: round up, never wake early.
    const timer = setTimeout(() => {
      unsubscribe();
      resolve();
    }, Math.ceil(ms));
    const interrupt = (): void => {
      clearTimeout(timer);
      unsubscribe();
      reject(interruptedError());
    };
    if (interruption) unsubscribe = interruption.subscribe(interrupt);
    try {
      onScheduled?.();
    } catch (error) {
      clearTimeout(timer);
      unsubscribe();
      reject(error);
    }
  });
}
