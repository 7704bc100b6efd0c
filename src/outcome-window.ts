import { createSlidingCounts } from './sliding-counts';

/** Successes and failures of one origin over a sliding window. */
export interface OutcomeCounts {
  readonly successes: number;
  readonly failures: number;
  /** How much of the window the counts cover: `windowMs`, or less if the origin is newer. */
  readonly spanMs: number;
}

export interface OutcomeWindow {
  add(now: number, failed: boolean): void;
  counts(now: number): OutcomeCounts;
  /** Forgets every count (a breaker that closes starts afresh). */
  clear(now: number): void;
}

export function createOutcomeWindow(windowMs: number): OutcomeWindow {
  const counts = createSlidingCounts(windowMs, 2); // 0: successes, 1: failures
  let since = Infinity;
  return {
    add(now, failed) {
      since = Math.min(since, now);
      counts.add(now, +failed);
    },
    counts(now) {
      return {
        successes: counts.sum(now, 0),
        failures: counts.sum(now, 1),
        spanMs: Math.min(windowMs, Math.max(0, now - since)),
      };
    },
    clear(now) {
      counts.clear();
      since = now;
    },
  };
}
