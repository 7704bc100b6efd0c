import type { OutcomeCounts } from './outcome-window';

export interface PacingSettings {
  readonly growthPerSecond: number;
  readonly healthyAfterMs: number;
  readonly minRatePerSecond: number;
}

/**
 * The send schedule of one origin (pure; the clock and `random` are given).
 *
 * Unpaced until a throttle signal. Then every send takes the next slot of a rate: the rate the
 * origin was measured to accept (its successes over the outcome window), which climbs by
 * `growthPerSecond` of itself each second, up to twice where it started, until the next signal
 * sets it again to what was accepted. An origin with no signal for `healthyAfterMs` is unpaced.
 */
export interface Pacer {
  readonly paced: boolean;
  /**
   * Reserves the time at which the next send may go (`now` when nothing holds it), or reserves
   * nothing and returns `undefined` when that time would be after `latest`.
   */
  reserve(now: number, latest: number): number | undefined;
  /**
   * A throttle signal (429, quota spent, or a 503 while most attempts fail: `overload`).
   * `waitMs` is the server's own wait; `hold` keeps every send until it is over.
   */
  throttle(
    now: number,
    counts: OutcomeCounts,
    waitMs: number | undefined,
    signal: Signal,
    quotaPerSecond?: number,
  ): void;
  /**
   * A breaker closed: release at the rate the origin handled before it failed, ramping up to
   * twice that within a second; unpaced after `healthyAfterMs` with no throttle signal.
   */
  release(now: number, lastGoodRate: number): void;
}

/**
 * - `limit`: a 429 (or GitHub's 403); an unpaced origin holds until its wait is over, since an
 *   unpaced client that meets one has spent the quota in a burst.
 * - `quota`: a response said the quota is spent: hold until it resets, paced or not.
 * - `overload`: a 503 while most attempts fail. If a window of pacing does not bring the share of
 *   failures under half, the 503s do not depend on the rate: pacing stops and ignores them
 *   until the origin has been free of them for `healthyAfterMs`.
 */
export type Signal = 'limit' | 'quota' | 'overload';

/**
 * Successes are counted over this window to measure the rate an origin accepts (it is
 * `PACING_WINDOW_MS` of the origin's outcome window).
 */
export const PACING_WINDOW_MS = 1000;
// The shortest span a rate is measured over, so a burst that all succeeded in a few
// milliseconds is not taken for a rate of thousands per second: an overloaded server is judged
// at its own pace (a tenth of a second), a rate limit by its quota period, a second at least.
const OVERLOAD_SPAN_MS = 100;
// After a breaker closes the rate climbs fast (a whole last good rate per second) to its cap.
const RELEASE_GROWTH = 1;
// No rate climbs past this multiple of the rate it was set to.
const CAP = 2;

export function createPacer(settings: PacingSettings, random: () => number): Pacer {
  let base = 0; // 0: unpaced
  let growth = settings.growthPerSecond;
  let since = 0;
  let next = 0;
  let holdUntil = 0;
  let lastSignal = -Infinity;
  let overloadSince: number | undefined;
  // Released after a breaker closed: the waiting calls take their slots at once, on the ramp.
  let releasing = false;
  let ignoreOverloadUntil = -Infinity;

  const rateAt = (t: number): number =>
    base * Math.min(CAP, 1 + (growth * Math.max(0, t - since)) / 1000);

  function pace(now: number, rate: number, growthPerSecond: number): void {
    base = Math.max(settings.minRatePerSecond, rate);
    growth = growthPerSecond;
    since = now;
  }

  function unpaceIfHealthy(now: number): void {
    if (base && now - lastSignal >= settings.healthyAfterMs) {
      base = 0;
      overloadSince = undefined;
      releasing = false;
    }
  }

  return {
    get paced() {
      return base > 0;
    },

    reserve(now, latest) {
      unpaceIfHealthy(now);
      if (!base) {
        if (now >= holdUntil) return now;
        // Held with no rate known: spread the release over a second past the end of the hold.
        const slot = holdUntil + random() * 1000;
        return slot > latest ? undefined : slot;
      }
      const slot = Math.max(now, next, holdUntil);
      if (slot > latest) return undefined;
      // At the rate of now: slots handed out ahead do not count on a climb not yet made (but a
      // release, all of whose calls take their slots at once, ramps as planned).
      next = slot + 1000 / rateAt(releasing ? slot : now);
      return slot;
    },

    throttle(now, counts, waitMs, signal, quotaPerSecond = 0) {
      if (signal === 'overload') {
        if (now < ignoreOverloadUntil) {
          ignoreOverloadUntil = now + settings.healthyAfterMs;
          return;
        }
        // A whole window measured since pacing began, and still mostly failures: not the rate.
        if (overloadSince !== undefined && now - overloadSince > PACING_WINDOW_MS * 1.2) {
          base = 0;
          overloadSince = undefined;
          ignoreOverloadUntil = now + settings.healthyAfterMs;
          return;
        }
      }
      lastSignal = now;
      releasing = false;
      const periodMs = signal === 'overload' ? OVERLOAD_SPAN_MS : PACING_WINDOW_MS;
      // An unpaced client that meets a 429 has spent the quota in a burst: it holds until the
      // server's wait is over, or, if the server gave none, until a second has passed since the
      // burst began (the shortest quota period in use).
      const hold =
        signal === 'quota' || (signal === 'limit' && !base)
          ? (waitMs ?? Math.max(0, periodMs - counts.spanMs))
          : undefined;
      if (hold !== undefined) holdUntil = Math.max(holdUntil, now + hold);
      // What the origin accepted, or the quota its headers announce, if that is more: a client
      // that spent its quota in a burst has accepted too few to measure from.
      const accepted = Math.max(
        (counts.successes * 1000) / Math.max(counts.spanMs, hold ?? 0, periodMs),
        quotaPerSecond,
      );
      if (accepted === 0) return; // nothing was accepted: no rate to learn (the breaker's case)
      if (signal === 'overload') overloadSince ??= now;
      pace(now, base ? Math.min(rateAt(now), accepted) : accepted, settings.growthPerSecond);
    },

    release(now, lastGoodRate) {
      lastSignal = now;
      overloadSince = undefined;
      next = now; // slots reserved before the breaker opened are gone
      pace(now, lastGoodRate, RELEASE_GROWTH);
      releasing = true;
    },
  };
}
