/** Calls waiting for a scope to change, woken oldest first. */
export interface WaitQueue {
  readonly size: number;
  /** Adds a call that started at `startedAt`; returns its removal. */
  add(startedAt: number, wake: () => void): () => void;
  wakeAll(): void;
}

export function createWaitQueue(): WaitQueue {
  let waiters: { readonly startedAt: number; readonly wake: () => void }[] = [];
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
    wakeAll() {
      const woken = waiters.sort((a, b) => a.startedAt - b.startedAt);
      waiters = [];
      for (const waiter of woken) waiter.wake();
    },
  };
}
