import type { RetryState, StopReason } from '../contract/types';
import type { Classification } from '../http/classify';
import { MAX_SERVER_WAIT_MS } from '../http/retry-after';
import type { ResolvedOptions } from '../options/options';
import { fullJitterDelay } from './backoff';
import type { RetryBudget } from './budget';

/** What is known of a failed attempt, read off the axios error by the interceptor. */
export interface AttemptOutcome {
  readonly classification: Classification;
  readonly status: number | undefined;
  /** Upper case. */
  readonly method: string;
  readonly hasIdempotencyKey: boolean;
  readonly replayableBody: boolean;
  /**
   * The wait the server asked for: its `Retry-After` (or a form of it), else its rate limit's
   * reset (read once, with the gate's reading). Not bounded: one past `maxRetryAfterMs` or a day
   * stops the call.
   */
  readonly serverWaitMs?: number | undefined;
  /** Its scope (origin or route) is paced or held by load control. */
  readonly paced?: boolean;
  /** The retry is not charged to the budget: its origin is paced, or mostly succeeding. */
  readonly retryIsFree?: boolean;
  /** What the server said of retrying (see server-signals.ts): `false` = don't, ms = pushback. */
  readonly advice?: boolean | number | undefined;
  /** The caller's `retryDelay`, if any: the delay in place of a backoff draw. */
  readonly delay?: ((delayMs: number) => number) | undefined;
}

/**
 * A failed attempt's outcome as `decide` weighs it: with the caller's verdict, when the decision
 * is made and the retry budget, if any, that a retry would be charged to.
 */
export interface OutcomeToDecide extends AttemptOutcome {
  /** Asks the caller's `shouldRetry`, if any; asked only when the answer matters. */
  readonly verdict: () => boolean | undefined;
  /** When the decision is made (the interceptor's clock). */
  readonly decisionAt: number;
  readonly budget?: RetryBudget | undefined;
}

export type Decision =
  | { readonly retry: false; readonly reason: StopReason }
  | { readonly retry: true; readonly delayMs: number; readonly finalAttempt: boolean };

const stop = (reason: StopReason): Decision => ({ retry: false, reason });

/** The default rule: is this failure worth repeating at all? */
function isRepeatable(
  outcome: AttemptOutcome,
  options: ResolvedOptions,
  retryCount: number,
): boolean {
  const { classification, status, hasIdempotencyKey } = outcome;
  // The server may have acted on the request: repeat it only if doing so twice is harmless.
  const safeToRepeat = hasIdempotencyKey || options.methods.includes(outcome.method);
  // The server said to retry; else, a failure of kind `status` has its status. The IETF
  // Idempotency-Key draft answers `409 Conflict` to a request whose key is still being processed:
  // to a retry of a keyed request, it means that the first attempt is still in flight, and after
  // a backoff the retry gets its stored outcome. A 409 to a first attempt or to an unkeyed request
  // is a real conflict, and a `422` (the key reused with another body) is never repeatable.
  return (
    outcome.advice === true ||
    (classification.kind === 'status'
      ? (options.statusCodes.includes(status as number) && safeToRepeat) ||
        (status === 409 && hasIdempotencyKey && retryCount > 0)
      : classification.kind === 'transient' && (classification.neverSent || safeToRepeat))
  );
}

/**
 * A throttle (a 429), or an overload (a 503), of a scope that pacing holds to the server's rate
 * (a scope that stopped serving is not paced: its 503s are the breaker's, and count as usual).
 */
export const isPacedThrottle = (outcome: AttemptOutcome): boolean =>
  !!outcome.paced && (outcome.status === 429 || outcome.status === 503);

/** A limit that ends the call whether or not its failure is repeatable, if one is reached. */
function limitReached(
  outcome: OutcomeToDecide,
  state: RetryState,
  options: ResolvedOptions,
): StopReason | undefined {
  if (!outcome.replayableBody) return 'body-not-replayable';
  // With a deadline, attempts that never reached the server (an origin down for a while) do not
  // use up the retries: the deadline bounds them, and the breaker keeps them from the origin.
  const refused =
    options.deadlineMs === undefined
      ? 0
      : (state.refusedCount ?? 0) + +outcome.classification.neverSent;
  // Throttles of a paced scope are pacing's to bound, not the count's: up to `retries` of them
  // are free (a leaky bucket may answer a call 429 while the pacer finds its rate).
  const throttled = Math.min(
    (state.throttledCount ?? 0) + +isPacedThrottle(outcome),
    options.retries,
  );
  if (state.retryCount - refused - throttled >= options.retries) return 'retries-exhausted';
  // The last attempt limits the load a call adds near its deadline; one that was refused never
  // reached the server, so it added none and does not use up the call's last chance.
  const lastChanceUsed = state.finalAttempt && !outcome.classification.neverSent;
  if (lastChanceUsed || state.startedAt + (options.deadlineMs ?? Infinity) <= outcome.decisionAt) {
    return 'deadline';
  }
}

/**
 * How long to wait before the retry, within what is left of the deadline, or why the call stops:
 * a server's wait is never cut short.
 */
function waitOf(outcome: OutcomeToDecide, state: RetryState, options: ResolvedOptions): Decision {
  const remaining = state.startedAt + (options.deadlineMs ?? Infinity) - outcome.decisionAt;
  // The later of a gRPC pushback and the server's wait: never sooner than either asked.
  const asked =
    typeof outcome.advice === 'number'
      ? Math.max(outcome.advice, outcome.serverWaitMs ?? 0)
      : outcome.serverWaitMs;
  // On top of a server-given wait, the draw only de-synchronises the clients released at the same
  // time: the server set the pace, so the spread is the first retry's, whatever the retry number.
  // A paced scope's 429s are free (see `limitReached`): past `retries` they no longer lengthen the
  // backoff, or a call's free throttles would leave it waiting seconds for a slot (seed 154).
  const jitter = fullJitterDelay(
    asked === undefined
      ? Math.min(
          state.retryCount + 1,
          outcome.paced && outcome.status === 429 ? options.retries : Infinity,
        )
      : 1,
    options,
    options.random,
  );
  const earliest = asked ?? 0;
  // A wait past the bound, or absurd (past a day, which `maxRetryAfterMs: Infinity` does not
  // lift), is not retried sooner than asked: the call stops. (No wait, 0, is within any bound.)
  if (!(earliest <= Math.min(options.maxRetryAfterMs, MAX_SERVER_WAIT_MS))) {
    return stop('retry-after-too-long');
  }
  // Waiting until the deadline itself would leave the attempt no time at all (`remaining` is
  // more than 0 here: no wait never stops).
  if (earliest >= remaining) return stop('deadline');

  // A server-given wait wins over the caller's `retryDelay`.
  let delayMs = asked === undefined && outcome.delay ? outcome.delay(jitter) : earliest + jitter;
  // A wait that would end past the deadline becomes one last attempt at a point drawn over the
  // time that remains: neither giving up while time remains, nor all clients at the last moment.
  const finalAttempt = delayMs >= remaining;
  if (finalAttempt) delayMs = earliest + options.random() * (remaining - earliest);

  return { retry: true, delayMs, finalAttempt };
}

/**
 * Decides, for a failed attempt, whether to stop (and why) or to retry after how long.
 * `outcome.budget` is charged only when the answer is to retry a request that reached the server,
 * to an origin that is neither paced nor mostly succeeding (`retryIsFree`).
 * Pure but for `options.random` and the budget, both given.
 */
export function decide(
  outcome: OutcomeToDecide,
  state: RetryState,
  options: ResolvedOptions,
): Decision {
  if (outcome.classification.kind === 'canceled') return stop('canceled');
  if (outcome.advice === false) return stop('upstream-gave-up');

  const limit = limitReached(outcome, state, options);
  // A limit stops the call whatever `shouldRetry` would answer, so it is not asked (a call that
  // has one stops with the limit); without it, a failure the default rule never repeats still
  // stops as `not-retryable`.
  const repeatable =
    (limit ? options.shouldRetry : outcome.verdict()) ??
    isRepeatable(outcome, options, state.retryCount);
  if (!repeatable) return stop('not-retryable');
  if (limit) return stop(limit);

  const wait = waitOf(outcome, state, options);
  if (!wait.retry) return wait;
  const charged = !outcome.classification.neverSent && !outcome.retryIsFree;
  if (charged && outcome.budget?.tryWithdraw(outcome.decisionAt) === false) {
    return stop('budget-exhausted');
  }
  return wait;
}
