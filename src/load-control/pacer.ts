import type { PaceState } from '../contract/store';
import type { PacingSettings } from '../contract/types';
import type { OutcomeCounts } from './outcome-window';

export type { PacingSettings };

/**
 * The send schedule of one scope (pure; the clock and `random` are given).
 *
 * Unpaced until a throttle signal. Then every send takes the next slot of a rate: the rate the
 * scope was measured to accept. Until a throttle is met while paced, the rate doubles every
 * quarter second (slow start: what a burst measured may be far below what the server drains); after
 * one, it climbs by `growthPerSecond` of itself per second, and by a request a second per second
 * when no quota was announced, without a ceiling, until the next signal sets it again to what was accepted. A scope with no signal for `healthyAfterMs` is
 * unpaced.
 */
export interface Pacer {
  /** The shared part of its state (`store.ts`); set by a change another client made. */
  shared: PaceState;
  /** The rate (requests per second) sends go at now, or `undefined` when unpaced. */
  rate(now: number): number | undefined;
  /**
   * The time at which the next send may go (`now` when nothing holds it), reserved for the
   * caller when it is no later than `latest`; a later one is returned but not reserved. During a
   * hold, once every `probeEveryMs` (within a second for a hold another client set), the call
   * that comes then goes at once as a probe (its slot is before `holdUntil`), unless `mayProbe`
   * is false. A call held past its latest fails at once on a hold that is this client's evidence
   * (`proof`), else waits for its probe (gate.ts).
   */
  reserve(now: number, latest: number, mayProbe?: boolean): number;
  /**
   * As of the last `reserve`: while a hold this client has no evidence of holds (another
   * client's, a write: not set here), when its probe is due, or a second after this client's last
   * probe of it (its answer is known by then: a throttle makes the hold this client's own, a
   * success ends it); else 0.
   */
  proof: number;
  /**
   * A throttle signal, and the counts of the scope paced at `now`. `waitMs` is the server's own
   * wait.
   */
  throttle(now: number, counts: OutcomeCounts, signal: ThrottleSignal): void;
  /** A probe of a hold came back with no throttle: the hold is over, and the pace with it. */
  endHold(now: number): void;
  /**
   * A success sent at `sentAt` said quota is left: the pace (the caller tells a paced scope
   * only), if set before it was sent, is over (a hold ends only by its probe).
   */
  room(now: number, sentAt: number): void;
  /**
   * A breaker closed: release at the rate the scope handled before it failed, ramping up to
   * twice that within a second; unpaced `healthyAfterMs` after `signalAt` with no throttle signal
   * since (`now`; earlier for a release that paces less long: scope.ts).
   */
  release(now: number, lastGoodRate: number, signalAt: number): void;
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
  /**
   * Requests per second the headers announce (the quota over its period): the floor of the rate
   * learned. None for a quota that others spend too (`throttleSignal`).
   */
  readonly quotaPerSecond?: number | undefined;
  /** The quota per second the headers announce, a floor or not: with one, the climb has no step. */
  readonly announced?: number | undefined;
  /** When the throttled attempt was sent: one sent before pacing began says nothing of the pace. */
  readonly sentAt: number;
  /**
   * The server named no period, though it said a wait: a quota with none said and a reset at the
   * one-second floor, or a limit's wait at that floor after a burst of a few successes. Its rate
   * is searched (see `learn`), from what the burst got over a tenth of a second.
   */
  readonly searchRate?: boolean | undefined;
  /** A limit's: the scope's requests still in flight when it came. */
  readonly unanswered?: number | undefined;
}

/** A 429 that names neither a wait nor a quota. */
export const isBare = (signal: ThrottleSignal): boolean =>
  signal.kind === 'limit' && signal.waitMs === undefined && !signal.quotaPerSecond;

/**
 * Successes are counted over this window to measure the rate a scope accepts (it is the window
 * of the scope's outcome counts).
 */
export const PACING_WINDOW_MS = 1000;
// The shortest span a rate is measured over, so a burst that all succeeded in a few
// milliseconds is not taken for a rate of thousands per second: an overloaded server is judged
// at its own pace (a tenth of a second), as is a rate that is searched (no period said); a rate
// limit by its quota period, a second at least.
const OVERLOAD_SPAN_MS = 100;
// Until a throttle is met while paced, the rate doubles four times a second: a burst that met a
// leaky bucket measured its burst size, not its drain rate, and must find the rate within a
// second or two.
const SLOW_START_DOUBLINGS = 4;
// The share of its rate a cut keeps at least (CUBIC's β, which the AWS SDKs use too).
const CUT = 0.7;
// With no quota announced, a rate climbs by this many requests a second, per second, besides
// `growthPerSecond` of itself: the same step for every client, so that clients that share a
// limit with no store between them converge on equal shares (Chiu and Jain: a climb in
// proportion alone keeps the ratio of their rates, and a client cut low stays low).
const STEP_PER_SECOND = 1;
// A 429 that says nothing more (no wait, no quota) this rare among a paced scope's successes is
// noise, not a sign its rate is too high: it changes nothing.
const NOISE = 1 / 50;
export const MIN_REFUSED = 4;
// A hold this client did not set itself (a foreign hold: another client's, through the store,
// or a write that is no client's) is probed by it this long after it began, once: its own
// evidence wins within a second, not a probe interval. A shorter hold ends first, and costs no
// probe.
const FOREIGN_MS = 1000;

/**
 * A state being changed. The helpers that set its rate (`pace`, `learn`) take the time from
 * `lastSignal`: the signal (or the release) that changes it.
 */
type Draft = { -readonly [K in keyof PaceState]: PaceState[K] };

/** The state of a scope that was never paced. */
const unpacedState = (): PaceState =>
  unpace({
    since: 0,
    decidedAt: Infinity,
    cuts: 0,
    holdUntil: 0,
    heldAt: -Infinity,
    roundSum: 0,
    roundReports: 0,
    lastSignal: -Infinity,
    ignoreOverloadUntil: -Infinity,
    // Set with each rate (`throttled`, `released`).
    growth: 0,
  } as Draft);

function rateAt(s: PaceState, t: number): number {
  const seconds = Math.max(0, t - s.since) / 1000;
  const factor = s.slowStart
    ? 2 ** Math.min(seconds * SLOW_START_DOUBLINGS, 30)
    : 1 + s.growth * seconds;
  return s.base * Math.min(s.cap, factor);
}

/** The time one send takes at the rate of `t`: on a slow start's ramp, the rate rises during it. */
function gapAfter(s: PaceState, t: number, share: number): number {
  const rate = (rateAt(s, t) * share) / 1000;
  if (!s.slowStart || t < s.since) return 1 / rate;
  const k = (SLOW_START_DOUBLINGS * Math.LN2) / 1000;
  return Math.log(1 + k / rate) / k;
}

/** Paces `d` at `rate` (`minRatePerSecond` at least), from its last signal. */
function pace(d: Draft, settings: PacingSettings, rate: number): void {
  d.base = Math.max(settings.minRatePerSecond, rate);
  // The climb starts when sending does: a hold is not a time the rate was tried.
  d.since = Math.max(d.lastSignal, d.holdUntil);
}

/** Unpaces `d` (and returns it). */
function unpace(d: Draft): Draft {
  return Object.assign(d, {
    base: 0,
    overloadSince: Infinity,
    releasing: false,
    slowStart: true,
    cap: Infinity,
  });
}

/** A paced scope with no signal for `healthyAfterMs` is unpaced (every client finds so alone). */
function settled(s: PaceState, settings: PacingSettings, now: number): PaceState {
  if (!s.base || now - s.lastSignal < settings.healthyAfterMs) return s;
  return unpace({ ...s });
}

/**
 * An overload signal that pacing is not the answer to: ignored (the scope is ignoring them), or
 * a whole window (and a fifth: 1.2 s) after pacing began and still mostly failures. Judged at the attempt's send: a
 * lagging client reads the answers to earlier sends late. Returns whether the signal is spent.
 */
function overloadNotOurs(d: Draft, settings: PacingSettings, sentAt: number): boolean {
  if (sentAt >= d.ignoreOverloadUntil) {
    if (!(sentAt - d.overloadSince > 1200)) return false;
    Object.assign(d, { base: 0, overloadSince: Infinity, decidedAt: Infinity });
  }
  d.ignoreOverloadUntil = sentAt + settings.healthyAfterMs;
  return true;
}

/**
 * Whether a throttle signal is a 429 that names neither a wait nor a quota, with no evidence of a
 * rate limit. The evidence: an unpaced scope's window mostly refused (three in four, six at least,
 * no fewer than still in flight: a burst that spent nginx's limiter, not random 429s read in turn,
 * of which up to 30 % met four refusals in six, two in three, one case in fifteen), a paced one's
 * not rare among its successes. Without it the call's own backoff retries, as with load control
 * off.
 */
const unproven = (d: Draft, signal: ThrottleSignal, c: OutcomeCounts): boolean =>
  isBare(signal) &&
  (d.base
    ? c.throttles + c.failures < c.successes * NOISE
    : c.throttles < Math.max(6, 3 * c.successes, signal.unanswered ?? 0));

/**
 * Holds `d` if the signal says the quota is spent, and returns for how long (`undefined`: no
 * hold). An unpaced client that meets a 429 (on evidence: `unproven`) has spent the quota in a
 * burst: it holds until the server's wait is over or, with none, for `restMs`, the rest of the
 * period since the burst began: a second (the shortest quota period in use), or a tenth after a
 * bare 429, which names none (a hold that would end in the past holds nothing). The hold is
 * replaced, not extended: the server's latest word on when it accepts again is the one kept. A
 * longer hold set before (this client's, another's through the store, or a write that is no
 * client's: a day, at most, once bounded) would otherwise outlive what the server now says, and
 * park every client until a probe.
 */
function hold(d: Draft, signal: ThrottleSignal, restMs: number): number | undefined {
  const { kind } = signal;
  if (kind !== 'quota' && (kind !== 'limit' || d.base)) return undefined;
  const holdMs = signal.waitMs ?? restMs;
  const now = d.lastSignal;
  d.holdUntil = now + holdMs;
  d.heldAt = now;
  return holdMs;
}

/** What a client reads a throttle signal against (`throttled`). */
interface Reading {
  readonly pacing: PacingSettings;
  /** When the signal came. */
  readonly now: number;
  /** The outcomes of the scope paced over the window, at `now`. */
  readonly counts: OutcomeCounts;
  /** This client's share of the rate. */
  readonly share: number;
  /** Whether this client reported what it accepted in the round of the last decision it saw. */
  readonly reported: boolean;
}

/**
 * What a throttle signal makes of the state, read by a client (`Reading`).
 * Pacing is given a window to cure an overload (`overloadNotOurs`), from when it began or, during
 * its slow start, from the last answer to a send made before: a backlog queued ahead of the pace
 * (a slow network, a server that accepts one connection at a time) is answered late, and mostly
 * refused.
 */
function throttled(s: PaceState, signal: ThrottleSignal, reading: Reading): PaceState {
  const { pacing, now, counts, share } = reading;
  const d: Draft = { ...settled(s, pacing, now) };
  const { kind, waitMs, quotaPerSecond = 0, sentAt } = signal;
  if (kind === 'overload' && overloadNotOurs(d, pacing, sentAt)) return d;
  if (unproven(d, signal, counts)) return s;
  d.lastSignal = now;
  d.releasing = false;
  // A rate the server named no period for (no wait said, or a wait at the one-second floor
  // after a few successes) is searched (slow start), from what was accepted over the span an
  // overload is judged at: a bucket that refills in milliseconds refuses a burst as a window
  // does, and over a second, a search started at a tenth of what the burst got.
  const search = waitMs === undefined || !!signal.searchRate;
  const periodMs = kind === 'overload' || isBare(signal) ? OVERLOAD_SPAN_MS : PACING_WINDOW_MS;
  const holdMs = hold(d, signal, periodMs - counts.spanMs);
  const oldNews = sentAt < d.decidedAt + periodMs / 2;
  // What this client had accepted (over the wait too, unless searched); over its share, what
  // the scope accepted; or the quota its headers announce, if that is more (a client that spent
  // its quota in a burst accepted too few to measure from), but not for old news while paced,
  // which would undo a cut.
  const own =
    (counts.successes * 1000) /
    Math.max(counts.spanMs, search ? OVERLOAD_SPAN_MS : Math.max(holdMs ?? 0, periodMs));
  const accepted = Math.max(own / share, d.base && oldNews ? 0 : quotaPerSecond);
  if (!accepted) return d; // nothing was accepted: no rate to learn (the breaker's case)
  const trial = d.slowStart || d.overloadSince === Infinity;
  if (kind === 'overload' && trial && sentAt < d.overloadSince) d.overloadSince = now;
  if (oldNews && d.base && share < 1 && !quotaPerSecond) {
    // The other clients' answers to the same burst: what each accepted adds up, once each, and
    // the clients not heard from yet are counted at the average of those that were. (The largest
    // of their estimates would win every time, and ratchet the rate up on noise.)
    if (reading.reported) return d;
    d.roundSum += own;
    d.roundReports++;
    pace(d, pacing, Math.max(d.roundSum / d.roundReports / share, rateAt(d, now) * CUT));
  } else {
    // A server that said how long to wait named its period: what was accepted over it is the
    // rate, with nothing to search for. With no wait said (or `searchRate`), slow start searches.
    if (!d.base) d.slowStart = search;
    pace(d, pacing, learn(d, accepted, oldNews));
    // A decision starts a round: this client's report is its first.
    if (d.decidedAt === now) {
      d.roundSum = own;
      d.roundReports = 1;
    }
  }
  // The climb from the rate just set: in proportion, and by a step with no quota announced.
  d.growth = pacing.growthPerSecond + (signal.announced ? 0 : STEP_PER_SECOND / d.base);
  return d;
}

/**
 * The rate to set (`throttled` paces at it) from what was accepted. An answer to a send made before
 * the rate was last set, or within half the period after (`oldNews`: the burst before pacing; the
 * overshoot that set it; a bucket that a burst filled and that is still draining: nginx's 5 at 20 a
 * second still refused the first paced sends 25–30 ms after an overload's decision, and a quarter
 * of its 100 ms read them as a cut, to half the drain rate), says the rate is at least that. One
 * met while paced says the rate it was sent at is too much: it is cut to what was accepted, but by
 * no more than a share of the rate (half after a slow start, whose rate a quarter second before was
 * still accepted), since a client may have sent less than the server takes. From then on it climbs
 * slowly.
 */
function learn(d: Draft, accepted: number, oldNews: boolean): number {
  const now = d.lastSignal;
  const rate = d.base && rateAt(d, now);
  // A first rate (its slow start or not is `throttled`'s to say), or a cut, is decided now.
  if (!d.base || !oldNews) d.decidedAt = now;
  if (!d.base || oldNews) return Math.max(rate, accepted);
  d.cuts++;
  const cut = Math.min(rate, Math.max(accepted, rate * (d.slowStart ? 0.5 : CUT)));
  d.slowStart = false;
  d.cap = Infinity;
  return cut;
}

/**
 * A probe of a hold came back with no throttle: the quota reset early, and what was learned of
 * its rate (over a wait that did not happen) is worth nothing; the scope starts afresh.
 */
function holdEnded(s: PaceState, now: number): PaceState {
  return unpace({ ...s, holdUntil: Math.min(s.holdUntil, now), heldAt: -Infinity });
}

/**
 * A breaker closed: the rate starts at the last good rate (floored by the caller) and ramps up
 * fast (see `release`), from the release's signal (`lastSignal`).
 */
function released(
  s: PaceState,
  now: number,
  pace: Pick<PaceState, 'base' | 'lastSignal'>,
): PaceState {
  return {
    ...s,
    ...{ overloadSince: Infinity, decidedAt: now, releasing: true },
    // The climb is fast: a whole last good rate per second, to twice it.
    ...{ slowStart: false, growth: 1, cap: 2 },
    // Paced (`pace`): the climb starts now, or when the hold ends.
    since: Math.max(now, s.holdUntil),
    ...pace,
  };
}

/**
 * The slot of a send held with no rate known: the release is spread past the end of the hold, over
 * a tenth of the hold (a second at most), and not past the latest the call can go: the spread is
 * ours, not the server's, and costs at most a tenth more than the wait it asked.
 */
function heldSlot(s: PaceState, latest: number, random: () => number): number {
  const spread = s.holdUntil + random() * Math.min(1000, (s.holdUntil - s.heldAt) / 10);
  return spread > latest ? Math.max(s.holdUntil, latest) : spread;
}

/** What of a pace is this client's own: its next slot, its last probe of a hold, the last rate decision it saw. */
interface OwnSchedule {
  next: number;
  /** The round (a decision's time) this client reported what it accepted in (none yet: unset). */
  round?: number;
  /**
   * When this client last sent a probe of a hold, or set one itself: a hold begun later is
   * another's.
   */
  probed: number;
  /**
   * The end of the hold this client last set: one of its start that ends later was moved by
   * another (a write to the store that kept its start), and is probed as another's.
   */
  until: number;
  /**
   * The last rate decision (its time) this client saw. Unset before the first: a rate with no
   * decision known (`decidedAt` Infinity) reserves no slot sooner either way.
   */
  seen?: number;
}

/** How a client takes part in a shared pace: it changes the state through the store. */
export interface PaceSharing {
  /** Makes a change of the shared state and returns it (the memory store: here, at once). */
  change(change: (state: PaceState) => PaceState): PaceState;
  /** This client's share of the rate: 1 over the clients sharing it. */
  share(): number;
}

/** What a pacer is given: the settings of its scope (`ScopeSettings`). */
export interface PacerSettings {
  readonly pacing: PacingSettings;
  /** Spreads the release of a hold with no rate known. */
  readonly random: () => number;
  /** A long hold lets one send through per `probeEveryMs`, as a probe. */
  readonly probeEveryMs: number;
}

export function createPacer(settings: PacerSettings, sharing: PaceSharing): Pacer {
  const pacing = settings.pacing;
  const own: OwnSchedule = { next: 0, probed: -Infinity, until: 0 };
  const change = (make: (s: PaceState) => PaceState) => {
    pacer.shared = sharing.change(make);
  };
  const pacer: Pacer = {
    shared: unpacedState(),
    proof: 0,
    rate(now) {
      const s = settled(pacer.shared, pacing, now);
      return s.base ? rateAt(s, now) : undefined;
    },
    reserve(now, latest, mayProbe = true) {
      const s = settled(pacer.shared, pacing, now);
      pacer.shared = s;
      // A hold of its own whose end another moved (its start kept) is another's (`until`).
      if (s.heldAt === own.probed && s.holdUntil > own.until) own.probed = -Infinity;
      const last = Math.max(s.heldAt, own.probed);
      pacer.proof = s.heldAt !== own.probed ? last + FOREIGN_MS : 0;
      const every = Math.min(own.probed < s.heldAt ? FOREIGN_MS : Infinity, settings.probeEveryMs);
      if (mayProbe && now < s.holdUntil && now >= last + every) {
        own.probed = now;
        return now;
      }
      if (!s.base) return now < s.holdUntil ? heldSlot(s, latest, settings.random) : now;
      // A rate set anew (a cut, a release): the slots ahead too, the first a gap after, no burst.
      const share = sharing.share();
      if (s.decidedAt !== own.seen)
        own.next = Math.min(own.next, s.decidedAt + gapAfter(s, s.decidedAt, share));
      own.seen = s.decidedAt;
      // A rate is a guess: a call that cannot wait for its slot goes at the hold's end, over pace.
      const slot = Math.max(now, s.holdUntil, Math.min(own.next, latest));
      // At now's rate, not a climb yet to come (a release's or slow start's slots ramp as planned).
      if (slot <= latest)
        own.next = slot + gapAfter(s, s.releasing || s.slowStart ? slot : now, share);
      return slot;
    },
    throttle(now, counts, signal) {
      const reported = own.round === pacer.shared.decidedAt;
      const share = sharing.share();
      change((s) => throttled(s, signal, { pacing, now, counts, share, reported }));
      own.round = pacer.shared.decidedAt;
      if (pacer.shared.heldAt === now) {
        own.probed = now;
        own.until = pacer.shared.holdUntil;
      }
    },
    endHold: (now) => change((s) => holdEnded(s, now)),
    room(now, sentAt) {
      const s = pacer.shared;
      if (sentAt >= Math.max(s.heldAt, s.decidedAt) && s.holdUntil <= now) pacer.endHold(now);
    },
    release: (now, rate, signalAt) =>
      change((s) =>
        released(s, now, { base: Math.max(pacing.minRatePerSecond, rate), lastSignal: signalAt }),
      ),
  };
  return pacer;
}
