/** Calls waiting for a scope to change, woken oldest first. */
export interface WaitQueue {
  readonly size: number;
  /** Adds a call that started at `startedAt`; returns its removal. */
  add(startedAt: number, wake: () => void): () => void;
  wakeAll(): void;
  /** Wakes the `n` oldest. */
  wakeOldest(n: number): void;
}

export function createWaitQueue(): WaitQueue {
  let waiters: { readonly startedAt: number; readonly wake: () => void }[] = [];
  const wakeOldest = (n: number): void => {
    const woken = waiters.sort((a, b) => a.startedAt - b.startedAt).splice(0, n);
    for (const waiter of woken) waiter.wake();
  };
  return {
    get size() {
      return waiters.length;
    },
    add(startedAt, wake) {
      const waiter = { startedAt, wake };
      waiters.push(waiter);
      return () => {
        waiters = waiters.filter((w) => w !== waiter);
      };
    },
    wakeAll: () => wakeOldest(Infinity),
    wakeOldest,
  };
}
