/**
 * An in-flight limit learned from latency (pure: time and samples are given), in the spirit of
 * Gradient2 and TCP Vegas. Little's law: a server with K workers answers K attempts at its
 * no-load latency; past K only its queue grows, and so does latency. So the limit grows while
 * latency stays near the no-load latency and shrinks when every attempt of a round waits.
 *
 * - A **round** is one round trip: it ends when an attempt sent after it began comes back.
 * - The **no-load latency** is the least seen since it was last **probed**: once the limit is
 *   first reached, then every 30 s while it is reached, one round runs at a quarter of the
 *   limit, and the attempt that ends it (sent with few in flight) measures it afresh. A cold
 *   start raises the first latencies; a server that got slower for good is measured so; and a
 *   queue kept at the limit does not pass for the server's own latency. A slow tail or a GC
 *   pause raises samples, never this minimum.
 * - **Queueing**: the least latency of a round is above `1.5 ×` the no-load latency (and 10 ms
 *   more): every attempt of it waited. Two such rounds in a row cut the limit to
 *   `limit × gradient + √limit` (the gradient `bar / least`, at least ½; `√limit` is the queue
 *   allowed), so one round stretched by a pause cuts nothing; and only while the throughput
 *   (Little: in flight / latency) is no more than 1.25 × the probe's (a queue's latency buys no
 *   throughput; a client short of CPU is slower with more in flight, yet serves more), and never
 *   below the limit the probe ran at (the server took that many at its no-load latency).
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
/** How often the no-load latency is measured again. */
export const PROBE_EVERY_MS = 30_000;

/** A fixed limit (`Infinity`: none): it learns nothing. */
export const fixedLimit = (limit: number): ConcurrencyLimit => ({ limit, sample: () => false });

export function createConcurrencyLimit(): ConcurrencyLimit {
  let limit = INITIAL_LIMIT;
  let noLoad = Infinity;
  let probedAt = -Infinity;
  // While the no-load latency is measured: the limit to go back to.
  let saved: number | undefined;
  let savedLeast = 0;
  // The limit the last probe ran at: the server took that many at its no-load latency.
  let floor = 0;
  // The most throughput seen since (per ms): growth past the latency bar must still add to it.
  let best = 0;
  const grown = (): number => Math.max(Math.sqrt(limit), limit / 4);
  let skip = false;
  let roundFrom: number | undefined;
  let least = Infinity;
  let most = 0;
  let shed = false;
  let queued = false;
  /** The law at the end of a round; `rttMs` is the latency of the attempt that ended it. */
  const endRound = (now: number, rttMs: number | undefined): void => {
    const barOf = (ms: number): number => Math.max(TOLERANCE * ms, ms + SLACK_MS);
    if (saved !== undefined) {
      // The attempt that ended the probe was sent with few in flight: its latency is the
      // no-load latency now (lower, or higher if the server itself got slower). Back to the
      // limit, cut at once if the latency before the probe was a queue's.
      if (rttMs !== undefined) {
        noLoad = rttMs;
        // The server serves that many at once at its no-load latency.
        floor = limit;
        best = limit / rttMs;
      }
      const bar = barOf(noLoad);
      limit =
        savedLeast > bar ? Math.min(saved, (saved * bar) / savedLeast + Math.sqrt(saved)) : saved;
      saved = undefined;
      queued = false;
      // The round the limit comes back in begins as a burst into an idle server: it says nothing.
      skip = true;
    } else if (skip) {
      skip = false;
    } else if (now - probedAt >= PROBE_EVERY_MS && most > limit / 2) {
      // Once the limit is reached (a cold start or a slow first burst raises every latency of the
      // first round), then every `PROBE_EVERY_MS`: a round at a quarter of the limit. A client
      // that uses half its limit or less is never held by it: it needs no probe.
      probedAt = now;
      saved = limit;
      savedLeast = least;
      limit = Math.max(1, limit / 4);
    } else if (least > barOf(noLoad)) {
      // A queue's latency buys no throughput (Little: in flight / latency); a latency that rises
      // with in flight while the throughput still does (a client short of CPU, say) is not the
      // server's queue. Before the first probe nothing is cut: a client that never used half its
      // limit has not been held by it.
      const throughput = most / least;
      if (throughput <= (1.25 * floor) / noLoad) {
        const cut = limit * Math.max(0.5, barOf(noLoad) / least) + Math.sqrt(limit);
        if (queued) limit = Math.max(Math.min(floor, limit), Math.min(limit, cut));
      } else if (throughput > 1.25 * best && most > limit / 2) limit += grown();
      best = Math.max(best, throughput);
      queued = true;
    } else {
      queued = false;
      if (!shed && (rttMs as number) <= barOf(noLoad) && most > limit / 2) limit += grown();
    }
  };
  return {
    get limit() {
      return Math.floor(limit);
    },
    sample({ now, sentAt, inFlight, rttMs }) {
      if (rttMs === undefined) shed = true;
      else {
        noLoad = Math.min(noLoad, rttMs);
        least = Math.min(least, rttMs);
      }
      most = Math.max(most, inFlight);
      roundFrom ??= now;
      if (sentAt < roundFrom) return false;
      const before = Math.floor(limit);
      endRound(now, rttMs);
      limit = Math.min(Math.max(limit, 1), MAX_LIMIT);
      roundFrom = now;
      least = Infinity;
      most = 0;
      shed = false;
      return Math.floor(limit) !== before;
    },
  };
}
