export interface RetryBudgetSettings {
  readonly ratio: number;
  readonly minRetriesPerSecond: number;
  readonly windowMs: number;
}

/**
 * The retry budget of one client (Finagle's model): within any window,
 * `retries ≤ ratio × requests + minRetriesPerSecond × windowMs / 1000`.
 * A retry storm can then add at most `ratio` to the load of an outage, while a quiet client
 * keeps a floor of retries to ride out a blip.
 */
export interface RetryBudget {
  /** Counts one call (its first attempt). */
  recordRequest(now: number): void;
  /** Takes one retry from the budget if it allows one; `false` leaves the budget unchanged. */
  tryWithdraw(now: number): boolean;
}

// The window is a ring of slots of windowMs / 10, so memory stays the same however long a client
// lives. The ring holds one slot more than the window: a count leaves it between windowMs and
// 1.1 × windowMs after it was made, never early, so no exact window holds more retries than the
// bound (a request may count up to a slot longer, in the retries' favour by at most that slot).
const SLOTS_PER_WINDOW = 10;
const SLOTS = SLOTS_PER_WINDOW + 1;

const ringIndex = (slot: number): number => ((slot % SLOTS) + SLOTS) % SLOTS;

export function createRetryBudget(settings: RetryBudgetSettings): RetryBudget {
  const slotMs = settings.windowMs / SLOTS_PER_WINDOW;
  const floor = (settings.minRetriesPerSecond * settings.windowMs) / 1000;
  const requests = new Array<number>(SLOTS).fill(0);
  const retries = new Array<number>(SLOTS).fill(0);
  let currentSlot = -Infinity;

  /** Moves the ring to `now`, emptying slots that fell out of the window; returns the slot of `now`. */
  function advance(now: number): number {
    const slot = Math.floor(now / slotMs);
    if (slot <= currentSlot) return ringIndex(currentSlot);
    const stale = Math.min(slot - currentSlot, SLOTS);
    for (let i = 0; i < stale; i++) {
      const index = ringIndex(slot - i);
      requests[index] = 0;
      retries[index] = 0;
    }
    currentSlot = slot;
    return ringIndex(slot);
  }

  const sum = (counts: number[]): number => counts.reduce((total, count) => total + count, 0);

  return {
    recordRequest(now) {
      const index = advance(now);
      requests[index] = (requests[index] ?? 0) + 1;
    },
    tryWithdraw(now) {
      const index = advance(now);
      if (sum(retries) + 1 > settings.ratio * sum(requests) + floor) return false;
      retries[index] = (retries[index] ?? 0) + 1;
      return true;
    },
  };
}
