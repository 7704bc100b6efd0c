import type { OutcomeCounts } from './outcome-window';
import type { PacingSettings } from './types';

export type { PacingSettings };

/**
 * The send schedule of one scope (pure; the clock and `random` are given).
 *
 * Unpaced until a throttle signal. Then every send takes the next slot of a rate: the rate the
 * scope was measured to accept. Until a throttle is met while paced, the rate doubles every
 * quarter second (slow start: what a burst measured may be far below what the server drains); after
 * one, it climbs by `growthPerSecond` of itself per second, without a ceiling, until the next
 * signal sets it again to what was accepted. A scope with no signal for `healthyAfterMs` is
 * unpaced.
 */
export interface Pacer {
  readonly paced: boolean;
  /**
   * Counts the cuts of the rate: a slot reserved before the last cut was spaced for a rate that
   * proved too high, and is to be reserved again.
   */
  readonly cuts: number;
  /** Until when a spent quota holds every send but a probe (0: no hold). */
  readonly holdUntil: number;
  /** The rate (requests per second) sends go at now, or `undefined` when unpaced. */
  rate(now: number): number | undefined;
  /**
   * The time at which the next send may go (`now` when nothing holds it), reserved for the
   * caller when it is no later than `latest`; a later one is returned but not reserved. During a
   * hold, once every `probeEveryMs`, the call that comes then goes at once as a probe (its slot
   * is before `holdUntil`).
   */
  reserve(now: number, latest: number): number;
  /**
   * A throttle signal. `waitMs` is the server's own wait; `replace` says a probe's reading
   * replaces the hold (a quota that reset early ends it).
   */
  throttle(now: number, counts: OutcomeCounts, signal: ThrottleSignal, replace: boolean): void;
  /** A probe of a hold came back with no throttle: the hold is over, and the pace with it. */
  endHold(now: number): void;
  /**
   * A breaker closed: release at the rate the scope handled before it failed, ramping up to
   * twice that within a second; unpaced after `healthyAfterMs` with no throttle signal.
   */
  release(now: number, lastGoodRate: number): void;
}

/**
 * What a response asked of the sender:
 * - `limit`: a 429 (or GitHub's 403); an unpaced scope holds until the server's wait is over
 *   when the burst was mostly refused, since it then has spent the quota;
 * - `quota`: a response said the quota is spent: hold until it resets, paced or not;
 * - `overload`: a 503 while most attempts fail. If a window of pacing does not bring the share of
 *   failures under half, the 503s do not depend on the rate: pacing stops and ignores them
 *   until the scope has been free of them for `healthyAfterMs`.
 */
export interface ThrottleSignal {
  readonly kind: 'limit' | 'quota' | 'overload';
  /** The server's wait (`Retry-After`, or the quota's reset). */
  readonly waitMs?: number | undefined;
  /** Requests per second the headers announce (the quota over its period). */
  readonly quotaPerSecond?: number | undefined;
  /** When the throttled attempt was sent: one sent before pacing began says nothing of the pace. */
  readonly sentAt: number;
}

/**
 * Successes are counted over this window to measure the rate a scope accepts (it is the window
 * of the scope's outcome counts).
 */
export const PACING_WINDOW_MS = 1000;
// The shortest span a rate is measured over, so a burst that all succeeded in a few
// milliseconds is not taken for a rate of thousands per second: an overloaded server is judged
// at its own pace (a tenth of a second), a rate limit by its quota period, a second at least.
const OVERLOAD_SPAN_MS = 100;
// Until a throttle is met while paced, the rate doubles four times a second: a burst that met a
// leaky bucket measured its burst size, not its drain rate, and must find the rate within a
// second or two.
const SLOW_START_DOUBLINGS = 4;
// A 429 that says nothing more (no wait, no quota) this rare among the successes of the window is
// noise (a healthy API's odd 429), not a rate: it changes nothing.
const NOISE = 1 / 50;
// The share of its rate a cut keeps at least (CUBIC's β, which the AWS SDKs use too).
const CUT = 0.7;
// After a breaker closes the rate climbs fast (a whole last good rate per second) to its cap.
const RELEASE_GROWTH = 1;
const RELEASE_CAP = 2;

export function createPacer(
  settings: PacingSettings,
  random: () => number,
  probeEveryMs: number,
): Pacer {
  let base = 0; // 0: unpaced
  // When the rate was last set from a throttle: the answers to sends made before it are old news.
  let decidedAt = Infinity;
  let cuts = 0;
  let growth = settings.growthPerSecond;
  let since = 0;
  // Slow start: no throttle met while paced yet, so the rate doubles each second.
  let slowStart = true;
  let cap = Infinity;
  let next = 0;
  let holdUntil = 0;
  let probeAt = Infinity;
  let lastSignal = -Infinity;
  let overloadSince: number | undefined;
  // Released after a breaker closed: the waiting calls take their slots at once, on the ramp.
  let releasing = false;
  let ignoreOverloadUntil = -Infinity;

  const rateAt = (t: number): number => {
    const seconds = Math.max(0, t - since) / 1000;
    const factor = slowStart
      ? 2 ** Math.min(seconds * SLOW_START_DOUBLINGS, 30)
      : 1 + growth * seconds;
    return base * Math.min(cap, factor);
  };

  /** The time one send takes at the rate of `t`: on a slow start's ramp, the rate rises during it. */
  function gapAfter(t: number): number {
    const rate = rateAt(t) / 1000;
    if (!slowStart || t < since) return 1 / rate;
    const k = (SLOW_START_DOUBLINGS * Math.LN2) / 1000;
    return Math.log(1 + k / rate) / k;
  }

  function pace(now: number, rate: number): void {
    base = Math.max(settings.minRatePerSecond, rate);
    // The climb starts when sending does: a hold is not a time the rate was tried.
    since = Math.max(now, holdUntil);
  }

  function unpace(): void {
    base = 0;
    overloadSince = undefined;
    releasing = false;
    slowStart = true;
    cap = Infinity;
    growth = settings.growthPerSecond;
  }

  function unpaceIfHealthy(now: number): void {
    if (base && now - lastSignal >= settings.healthyAfterMs) unpace();
  }

  function hold(now: number, ms: number, replace: boolean): void {
    holdUntil = replace ? now + ms : Math.max(holdUntil, now + ms);
    probeAt = now + probeEveryMs;
  }

  return {
    get paced() {
      return base > 0;
    },
    get holdUntil() {
      return holdUntil;
    },
    get cuts() {
      return cuts;
    },
    rate(now) {
      return base && now - lastSignal < settings.healthyAfterMs ? rateAt(now) : undefined;
    },

    reserve(now, latest) {
      unpaceIfHealthy(now);
      // A long hold lets one send through per probeEveryMs, to a call that comes when one is
      // due (none waits for it: the others learn when the hold ends, and fail at once).
      if (now < holdUntil && now >= probeAt) {
        probeAt = now + probeEveryMs;
        return now;
      }
      if (!base) {
        if (now >= holdUntil) return now;
        // Held with no rate known: spread the release over a second past the end of the hold.
        return holdUntil + random() * 1000;
      }
      const slot = Math.max(now, next, holdUntil);
      // At the rate of now: slots handed out ahead do not count on a climb not yet made (but a
      // release or a slow start, whose calls take their slots at once, ramps as planned).
      if (slot <= latest) next = slot + gapAfter(releasing || slowStart ? slot : now);
      return slot;
    },

    throttle(now, counts, signal, replace) {
      const { kind, waitMs, quotaPerSecond = 0, sentAt } = signal;
      if (kind === 'overload') {
        if (now < ignoreOverloadUntil) {
          ignoreOverloadUntil = now + settings.healthyAfterMs;
          return;
        }
        // A whole window measured since pacing began, and still mostly failures: not the rate.
        if (overloadSince !== undefined && now - overloadSince > PACING_WINDOW_MS * 1.2) {
          base = 0;
          decidedAt = Infinity;
          overloadSince = undefined;
          ignoreOverloadUntil = now + settings.healthyAfterMs;
          return;
        }
      }
      const rare = counts.throttled + counts.failures < counts.successes * NOISE;
      if (kind === 'limit' && waitMs === undefined && rare) return;
      lastSignal = now;
      releasing = false;
      const periodMs = kind === 'overload' ? OVERLOAD_SPAN_MS : PACING_WINDOW_MS;
      // An unpaced client that meets a 429 (not a rare one: see NOISE) has spent the quota in a
      // burst: it holds until the server's wait is over or, if the server gave none, until a
      // second has passed since the burst began (the shortest quota period in use).
      const holdMs =
        kind === 'quota' || (kind === 'limit' && !base)
          ? (waitMs ?? Math.max(0, periodMs - counts.spanMs))
          : undefined;
      if (holdMs !== undefined) hold(now, holdMs, replace);
      // What the scope accepted, or the quota its headers announce, if that is more: a client
      // that spent its quota in a burst has accepted too few to measure from.
      let accepted = Math.max(
        (counts.successes * 1000) / Math.max(counts.spanMs, holdMs ?? 0, periodMs),
        quotaPerSecond,
      );
      if (accepted === 0) return; // nothing was accepted: no rate to learn (the breaker's case)
      if (kind === 'overload') overloadSince ??= now;
      // An answer to a send made before the rate was last set, or within a quarter of the period
      // after (the burst before pacing; the overshoot that set it; a bucket that a burst filled
      // and that is still draining): what was accepted is a floor, not a cut.
      if (!base || sentAt < decidedAt + periodMs / 4) {
        if (!base) {
          decidedAt = now;
          // A server that said how long to wait named its period: what was accepted over it is
          // the rate, with nothing to search for. With no wait said, slow start searches.
          slowStart = waitMs === undefined;
        }
        pace(now, Math.max(base && rateAt(now), accepted));
        return;
      }
      // Met while paced: the rate it was sent at is too much. From here on it climbs slowly.
      // The cut is to what was accepted, but by no more than a share of the rate (half, after a
      // slow start, whose rate a quarter second before was still accepted): what was accepted
      // in the window may be less than the server takes, when the client sent less than that.
      const rate = rateAt(now);
      accepted = Math.min(rate, Math.max(accepted, rate * (slowStart ? 0.5 : CUT)));
      decidedAt = now;
      cuts++;
      next = now; // the slots reserved ahead are reserved again, at the new rate
      slowStart = false;
      cap = Infinity;
      growth = settings.growthPerSecond;
      pace(now, accepted);
    },

    endHold(now) {
      // The quota reset early: what was learned of its rate (over a wait that did not happen)
      // is worth nothing; the scope starts afresh.
      holdUntil = Math.min(holdUntil, now);
      probeAt = Infinity;
      unpace();
    },

    release(now, lastGoodRate) {
      lastSignal = now;
      overloadSince = undefined;
      next = now; // slots reserved before the breaker opened are gone
      decidedAt = now;
      slowStart = false;
      growth = RELEASE_GROWTH;
      cap = RELEASE_CAP;
      pace(now, lastGoodRate);
      releasing = true;
    },
  };
}
