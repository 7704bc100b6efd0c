import type { RetryBudgetSettings } from '../contract/types';
import { createSlidingCounts } from '../runtime/sliding-counts';

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
  /** The share of the window's allowance not yet spent on retries (0 to 1). */
  remaining(now: number): number;
}

export function createRetryBudget(settings: RetryBudgetSettings): RetryBudget {
  const floor = (settings.minRetriesPerSecond * settings.windowMs) / 1000;
  // A count leaves the window between windowMs and 1.1 × windowMs after it was made, never
  // early, so no exact window holds more retries than the bound (a request may count up to a
  // tenth of a window longer, in the retries' favour). Two kinds of count, written as their
  // numbers (a bundle keeps a named constant as a variable): 0 the requests, 1 the retries.
  const counts = createSlidingCounts(settings.windowMs, 2);
  const allowed = (now: number): number => settings.ratio * counts.sum(now, 0) + floor;
  return {
    recordRequest(now) {
      counts.add(now, 0);
    },
    tryWithdraw(now) {
      if (counts.sum(now, 1) + 1 > allowed(now)) return false;
      counts.add(now, 1);
      return true;
    },
    remaining(now) {
      // None allowed: 0, not NaN (`0 / 0`) nor below 0 (`n / 0`).
      return Math.max(0, 1 - counts.sum(now, 1) / allowed(now)) || 0;
    },
  };
}
