import type { RateLimit } from '../http/rate-limit-headers';
import type { OutcomeCounts } from './outcome-window';
import { PACING_WINDOW_MS, type ThrottleSignal } from './pacer';

/** What an attempt's response said, as the throttle signal needs it. */
export interface Answer {
  readonly status?: number | undefined;
  /** The server's wait: `Retry-After`, else the rate limit's reset. */
  readonly waitMs?: number | undefined;
  readonly rateLimit?: RateLimit | undefined;
  readonly sentAt: number;
}

/** What the scope looks like when the answer comes. */
export interface ScopeView {
  readonly counts: OutcomeCounts;
  readonly inFlight: number;
  readonly lastSuccessAt: number;
}

// A reset this near is no evidence of a spent quota worth holding every call for (see below).
const SHORT_RESET_MS = 2000;
// Attempts the window must hold before a 503 may count as an overload.
const MIN_OVERLOAD_SAMPLE = 20;

/**
 * Whether an answer asks the sender to slow down, and how (pure):
 * - the headers say the quota is spent, counting the requests still in flight, which will spend
 *   what is left: a `quota` hold until the reset (a second after the burst began, if not said).
 *   Not for a reset of two seconds or less: said in whole seconds, rounded up (and read against a
 *   `Date` truncated to the second), it may be any time from now on, and a token or leaky bucket
 *   says it after every request that took its last token while it refills in milliseconds. The
 *   next attempt finds out: a 429 and its `Retry-After` hold the call that gets them (issue 21);
 * - a 429 (GitHub's 403 with nothing left is read as one), or a 503 with a wait: `limit`;
 * - a 503 without a wait while two in three of enough attempts fail, yet some still succeed
 *   now: `overload`. An origin that stopped succeeding is dying, not overloaded: pacing would
 *   learn a rate near zero from it.
 */
export function throttleSignal(
  answer: Answer,
  scope: ScopeView,
  now: number,
): ThrottleSignal | undefined {
  const { status, rateLimit, sentAt } = answer;
  const remaining = rateLimit?.remaining;
  const resetMs = rateLimit?.resetMs;
  if (
    remaining !== undefined &&
    remaining <= scope.inFlight &&
    !((resetMs as number) <= SHORT_RESET_MS)
  ) {
    return { kind: 'quota', waitMs: resetMs, sentAt };
  }
  const waitMs = answer.waitMs;
  if (status === 429 || (status === 503 && waitMs !== undefined)) {
    return { kind: 'limit', waitMs, sentAt };
  }
  if (status !== 503) return undefined;
  const { successes, failures, throttled } = scope.counts;
  const serving = now - scope.lastSuccessAt <= PACING_WINDOW_MS / 10;
  if (successes + failures + throttled < MIN_OVERLOAD_SAMPLE) return undefined;
  return failures >= 2 * successes && serving ? { kind: 'overload', sentAt } : undefined;
}
