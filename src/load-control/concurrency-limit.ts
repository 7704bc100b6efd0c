/**
 * An in-flight limit learned from latency (pure: time and samples are given), in the spirit of
 * Gradient2 and TCP Vegas. Little's law: a server with K workers answers K attempts at its
 * no-load latency; past K only its queue grows, and so does latency. So the limit grows while
 * latency stays near the no-load latency and shrinks when every attempt of a round waits.
 *
 * - A **round** is one round trip: it ends when an attempt sent after it began comes back.
 * - The **no-load latency** is the least seen over the last minute (two windows of 30 s): a cold
 *   connection, a slow tail or a GC pause raise samples, never this minimum.
 * - **Queueing**: the least latency of a round is above `1.5 ×` the no-load latency (and 10 ms
 *   more): every attempt of it waited. Two such rounds in a row cut the limit to
 *   `limit × gradient + √limit` (the gradient `bar / least`, at least ½; `√limit` is the queue
 *   allowed), so one round stretched by a pause cuts nothing.
 * - **Growth**, by a quarter (√limit, if more), when the attempt that ended the round (the first
 *   to come back of those sent in it: it met the queue as the round began) was near the no-load
 *   latency, nothing in the round was shed, and the round used more than half the limit: an
 *   app-limited client learns nothing of the server by growing. A burst into an idle server is
 *   answered fast at first; the attempt that ends its round is not, so it does not grow.
 */

export interface LimitSample {
  readonly now: number;
  /** When the attempt was sent. */
  readonly sentAt: number;
  /** Attempts in flight as it ended, itself included. */
  readonly inFlight: number;
  /** Its latency; `undefined` for an answer that says nothing of it (a shed 503, a reset, a 429). */
  readonly rttMs: number | undefined;
}

export interface ConcurrencyLimit {
  /** Attempts that may be in flight at once (a whole number ≥ 1). */
  readonly limit: number;
  /** Learns from an attempt that ended; returns whether `limit` changed. */
  sample(sample: LimitSample): boolean;
}

export const INITIAL_LIMIT = 32;
const MAX_LIMIT = 10_000;
const TOLERANCE = 1.5;
const SLACK_MS = 10;
const LONG_MS = 30_000;

/** A fixed limit (`Infinity`: none): it learns nothing. */
export const fixedLimit = (limit: number): ConcurrencyLimit => ({ limit, sample: () => false });

export function createConcurrencyLimit(): ConcurrencyLimit {
  let limit = INITIAL_LIMIT;
  // The least latency of the previous and the current long window, and when the current began.
  let lows = [Infinity, Infinity];
  let longFrom = -Infinity;
  let roundFrom: number | undefined;
  let least = Infinity;
  let most = 0;
  let shed = false;
  let queued = false;
  return {
    get limit() {
      return Math.floor(limit);
    },
    sample({ now, sentAt, inFlight, rttMs }) {
      if (now - longFrom >= LONG_MS) {
        lows = [lows[1] as number, Infinity];
        longFrom = now;
      }
      if (rttMs === undefined) shed = true;
      else {
        lows[1] = Math.min(lows[1] as number, rttMs);
        least = Math.min(least, rttMs);
      }
      most = Math.max(most, inFlight);
      roundFrom ??= now;
      if (sentAt < roundFrom) return false;
      const before = Math.floor(limit);
      const noLoad = Math.min(...lows);
      const bar = Math.max(TOLERANCE * noLoad, noLoad + SLACK_MS);
      if (least > bar) {
        if (queued) limit = Math.min(limit, limit * Math.max(0.5, bar / least) + Math.sqrt(limit));
        queued = true;
      } else {
        queued = false;
        if (!shed && (rttMs as number) <= bar && most > limit / 2) {
          limit += Math.max(Math.sqrt(limit), limit / 4);
        }
      }
      limit = Math.min(Math.max(limit, 1), MAX_LIMIT);
      roundFrom = now;
      least = Infinity;
      most = 0;
      shed = false;
      return Math.floor(limit) !== before;
    },
  };
}
