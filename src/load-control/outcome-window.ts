import { createSlidingCounts } from '../runtime/sliding-counts';

/** How one scope's attempts ended over a sliding window. */
export interface OutcomeCounts {
  readonly successes: number;
  /** Failures that say the scope is broken (a 5xx, a refused connection…). */
  readonly failures: number;
  /** Throttles (a 429, a spent quota): the scope is alive, only asking to slow down. */
  readonly throttles: number;
  /** How much of the window the counts cover: `windowMs`, or less if the scope is newer. */
  readonly spanMs: number;
}

/** How an attempt ended, for load control; `undefined` (canceled, say) says nothing and does not count. */
export type AttemptResult = 'success' | 'failure' | 'throttled' | undefined;

export interface OutcomeWindow {
  add(now: number, result: Exclude<AttemptResult, undefined>): void;
  counts(now: number): OutcomeCounts;
  /** Forgets every count (a breaker that closes starts afresh). */
  clear(now: number): void;
}

const KINDS = ['success', 'failure', 'throttled'] as const;

export function createOutcomeWindow(windowMs: number): OutcomeWindow {
  // (Three kinds, written as a number: a bundle keeps `KINDS.length` as it is.)
  const counts = createSlidingCounts(windowMs, 3);
  let since = Infinity;
  return {
    add(now, result) {
      since = Math.min(since, now);
      counts.add(now, KINDS.indexOf(result));
    },
    counts(now) {
      return {
        successes: counts.sum(now, 0),
        failures: counts.sum(now, 1),
        throttles: counts.sum(now, 2),
        spanMs: Math.min(windowMs, Math.max(0, now - since)),
      };
    },
    clear(now) {
      counts.clear();
      since = now;
    },
  };
}
