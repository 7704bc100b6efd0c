/** Calls waiting for a scope to change, woken oldest first. */
export interface WaitQueue {
  readonly size: number;
  /** Adds a call that started at `startedAt`; returns its removal. */
  enqueue(startedAt: number, wake: () => void): () => void;
  wakeAll(): void;
}

export function createWaitQueue(): WaitQueue {
  const waiters = new Set<{ readonly startedAt: number; readonly wake: () => void }>();
  // The set itself answers `size`.
  return Object.assign(waiters, {
    enqueue(startedAt: number, wake: () => void) {
      const waiter = { startedAt, wake };
      waiters.add(waiter);
      return () => {
        waiters.delete(waiter);
      };
    },
    wakeAll() {
      const woken = [...waiters].sort((a, b) => a.startedAt - b.startedAt);
      waiters.clear();
      for (const waiter of woken) waiter.wake();
    },
  });
}
