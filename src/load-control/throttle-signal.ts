import type { RateLimit } from '../http/rate-limit-headers';
import { serverWait } from '../http/retry-after';
import type { OutcomeCounts } from './outcome-window';
import { MIN_REFUSED, PACING_WINDOW_MS, type ThrottleSignal } from './pacer';

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
  /** Unset before the first success. */
  readonly lastSuccessAt?: number | undefined;
}

/**
 * Whether an answer asks the sender to slow down, and how (pure):
 * - the headers say the quota is spent, counting the requests still in flight, which will spend
 *   what is left: a `quota` hold until the reset (a second after the burst began, if not said).
 *   A reset is said in whole seconds, rounded up: held to it, a quota of a second or two would
 *   lose up to a second in each window. Such a quota, when its size is known, is paced at its own
 *   rate instead, the hold ending a second early but not before one slot of that rate (a send
 *   that still comes early meets a 429 and its Retry-After). A longer quota is held to its reset:
 *   the second costs little. But a success with the quota spent, no period said and a reset of
 *   two seconds at most (or none) says nothing to act on: a reset in whole seconds, rounded up,
 *   is that short whether a window ends then or a bucket refills in milliseconds (a hold on it is
 *   slower than no load control against a bucket). The 429 that may follow says the server's
 *   wait, which the call honours;
 * - a 429 (GitHub's 403 with nothing left is read as one), or a 503 with a wait: `limit`;
 * - a 503 without a wait while two in three of enough attempts fail, yet some still succeed
 *   now: `overload`. An origin that stopped succeeding is dying, not overloaded: pacing would
 *   learn a rate near zero from it.
 *
 * The quota a signal announces is per second over its period. With no period said, the period is
 * the reset in whole seconds, rounded down: an epoch reset against a `Date` truncated to the
 * second is up to two seconds for a one-second window, and spread over it a quota would run at a
 * third of its rate. That quota is the floor of the rate the pacer learns, but for a quota of a
 * second or less when the client is refused again and again while the server counts more of it
 * spent than the client's successes over the last second: others spend it too (workers on one
 * key with no store between them), and what the client measured is its share.
 */
export function throttleSignal(
  answer: Answer,
  scope: ScopeView,
  now: number,
): ThrottleSignal | undefined {
  const { status, rateLimit, sentAt, waitMs } = answer;
  const { successes, throttles } = scope.counts;
  // A reset past a day is garbage to a hold (it stops the call it throttled: policy.ts).
  const resetMs = serverWait(rateLimit?.resetMs);
  const reset = resetMs ?? 0;
  // The period: said, or the reset in whole seconds, rounded down (see above).
  const periodMs = Math.max(
    rateLimit?.periodMs ?? Math.floor(reset / 1000) * 1000,
    PACING_WINDOW_MS,
  );
  const quota = rateLimit?.limit ? (rateLimit.limit * 1000) / periodMs : undefined;
  const remaining = rateLimit?.remaining;
  // No floor for a quota of a second (its limit) that others spend too (see above).
  const floor =
    periodMs <= PACING_WINDOW_MS &&
    throttles >= MIN_REFUSED &&
    successes < (quota as number) - (remaining as number)
      ? undefined
      : quota;
  // Quota spent (none: `undefined <= n` is false), unless a success's short reset, rounded, says
  // nothing (see above).
  if (
    (remaining as number) <= scope.inFlight &&
    !((status ?? 0) < 400 && !rateLimit?.periodMs && reset <= 2000)
  ) {
    // A reset at the one-second floor, with no period said, names no period: the quota may be a
    // bucket that refills in milliseconds. The rate is then searched, as after a bare 429.
    return {
      kind: 'quota',
      waitMs:
        quota !== undefined && resetMs !== undefined && periodMs <= 2000
          ? Math.max(1000 / quota, resetMs - 1000)
          : resetMs,
      quotaPerSecond: floor,
      announced: quota,
      sentAt,
      searchRate: !(rateLimit?.periodMs || reset > 1000),
    };
  }
  if (status === 429 || (status === 503 && waitMs !== undefined)) {
    // A wait of two seconds at most (an HTTP date names the second after the one it ends in)
    // after fewer successes than MIN_REFUSED names no period either: a bucket a few deep that
    // refills in milliseconds refuses a burst for a rounded second. (No wait: searched anyway.)
    return {
      kind: 'limit',
      waitMs,
      quotaPerSecond: floor,
      announced: quota,
      sentAt,
      searchRate: (waitMs ?? 0) <= 2000 && successes < MIN_REFUSED,
      unanswered: scope.inFlight,
    };
  }
  return status === 503 && overloaded(scope, now) ? { kind: 'overload', sentAt } : undefined;
}

/**
 * Whether a 503 without a wait is an overload: two in three of 20 attempts at least fail, while
 * the origin is still served (a success within 0.1 s).
 */
const overloaded = ({ counts: c, lastSuccessAt }: ScopeView, now: number): boolean =>
  c.successes + c.failures + c.throttles >= 20 &&
  c.failures >= 2 * c.successes &&
  // No success yet (unset): NaN, never within.
  now - (lastSuccessAt as number) <= 100;
