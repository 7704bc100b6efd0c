import type { LoadControlStore } from '../contract/store';
import type { RateLimit } from '../http/rate-limit-headers';
import type { Where } from '../http/route';
import { DEFAULT_PACING } from '../options/options';
import type { CircuitBreakerSettings } from './circuit-breaker';
import type { AttemptResult } from './outcome-window';
import { isBare, type PacingSettings } from './pacer';
import {
  adopt,
  type Counted,
  isBusy,
  isClosed,
  isHeld,
  newScope,
  type Pass,
  pacerChange,
  record,
  recordProbe,
  type Scope,
  type ScopeSettings,
} from './scope';
import { createScopeCache, lastOf, type ScopeCache } from './scope-cache';
import { memoryStore, storeNow } from './store';
import { throttleSignal } from './throttle-signal';
import type { WaitQueue } from './wait-queue';

export type { Pass, Scope } from './scope';
export { whereOf } from './scope';

export interface LoadControlSettings {
  readonly circuitBreaker: CircuitBreakerSettings | false;
  readonly pacing: PacingSettings | false;
  readonly random: () => number;
  /** While a quota holds a scope for longer than this, one probe per this long checks it. */
  readonly probeEveryMs: number;
  /** Where the state clients may share lives (the memory store: in this client only). */
  readonly store?: LoadControlStore | undefined;
}

/**
 * What the gate says to an attempt:
 * - `go`: at `at` (reserved);
 * - `wait`: for the breaker of `scope` until `until` (`Infinity`: until a probe in flight ends),
 *   then ask again;
 * - `late`: the earliest slot, `at`, is after the latest the call can use; nothing is reserved.
 *   `proof`: how long (if more than 0) the call waits, within its latest, before it asks again:
 *   held by a hold this client has no evidence of (`Pacer.proof`), until its probe is due, or
 *   its answer known.
 */
export type Verdict =
  | { readonly kind: 'go'; readonly pass: Pass; readonly at: number }
  | { readonly kind: 'wait'; readonly scope: Scope; readonly until: number }
  | { readonly kind: 'late'; readonly at: number; readonly proof: number };

/** How an attempt ended, as load control needs it. */
export interface Ending {
  /** Unset: the attempt has no result to count (`AttemptResult`). */
  readonly result?: AttemptResult;
  /** A fault of the connection (refused, reset before an answer, DNS): it is the origin's. */
  readonly originWide?: boolean;
  readonly status?: number | undefined;
  /** The server's wait: `Retry-After`, else the rate limit's reset. */
  readonly waitMs?: number | undefined;
  readonly rateLimit?: RateLimit | undefined;
  /** When the attempt was sent. */
  readonly sentAt: number;
}

/** How an attempt ended, on the store's clock, and when. */
interface Ended extends Ending {
  readonly endedAt: number;
}

/** A long-lived client may talk to many origins and routes: it keeps the most recent ones. */
export const MAX_SCOPES = 256;

export interface LoadControl {
  /** The gate of the attempt to `where`, at `now`, that can go no later than `latest`. */
  admit(where: Where, now: number, latest: number): Verdict;
  /** Whether an attempt let through may still go after waiting for its slot: a breaker may have opened. */
  isStillAdmitted(pass: Pass): boolean;
  settle(pass: Pass, now: number, ending: Ending): void;
  /** An attempt that did not pass the gate (the interceptor alone sees first attempts fail only). */
  observe(where: Where, now: number, ending: Ending): void;
  /**
   * The calls waiting for the scope's breaker to change, or (`forSlot`) for the scope to be no
   * longer paced: each is woken once it does.
   */
  waiters(scope: Scope, forSlot?: boolean): WaitQueue;
  /** The smoothed time an attempt to this origin takes. */
  latencyOf(origin: string): number;
  /**
   * What a retry to this route meets: whether pacing holds the route or its origin (paced, or
   * held until a reset), and whether the retry is free of the retry budget (paced, or mostly
   * succeeding).
   */
  standing(where: Where, now: number): { paced: boolean; retryIsFree: boolean };
  /** The scopes it knows (view.ts). */
  scopes(): Iterable<Scope>;
  /** Holds the origin's breaker open (`undefined`: the breaker is off); returns its release. */
  isolate(origin: string): (() => void) | undefined;
  /** Stops hearing the store: a store outlives the clients it serves (detached ones included). */
  close(): void;
  /**
   * Now on the store's clock, the one clock of load control: the times of its scopes (holds,
   * breaks) are on it. Its methods take times on this process's clock (`clock.ts`) and read
   * them on the store's.
   */
  now(): number;
}

/** The scopes of one client, and what it knows of their settings. */
interface Control {
  readonly scopes: ScopeCache<Scope>;
  readonly settings: ScopeSettings;
  readonly pacing: boolean;
}

const routeKey = lastOf((origin: string, route: string): string => `${origin}/${route}`);

/** The scope of `name` (an origin, or a route of `parent`), made if there is none. */
const scopeOf = (c: Control, name: string, parent?: Scope): Scope =>
  c.scopes.use(name, () => newScope(c.settings, name, parent));

/** The scopes of an origin and of its route. */
type Scopes = readonly [origin: Scope, route: Scope];

function scopesOf(c: Control, [origin, route]: Where): Scopes {
  const o = scopeOf(c, origin);
  return [o, scopeOf(c, routeKey(origin, route), o)];
}

/** Gives back the probes an attempt took, for an attempt that will not go. */
function giveBack(probes: readonly Scope[], now: number): void {
  for (const scope of probes) {
    scope.breaker?.record(now, undefined, true);
    scope.waiters.wakeAll();
  }
}

function admit([o, r]: Scopes, now: number, latest: number): Verdict {
  // The breakers' say (no breaker: undefined, as a closed one's 'send'): the verdict to wait, or
  // the scopes this attempt probes.
  const byOrigin = o.breaker?.admit(now);
  if (typeof byOrigin === 'number') return { kind: 'wait', scope: o, until: byOrigin };
  const byRoute = r.breaker?.admit(now);
  if (typeof byRoute === 'number') {
    if (byOrigin === 'probe') giveBack([o], now);
    return { kind: 'wait', scope: r, until: byRoute };
  }
  // Neither probes (the success path): no array made to say so.
  const probes =
    byOrigin === 'probe' || byRoute === 'probe'
      ? [o, r].filter((_, i) => (i ? byRoute : byOrigin) === 'probe')
      : undefined;
  // A probe is one attempt: it goes at once, not after the slots of the calls before it.
  let at = now;
  let holdProbe: Scope | undefined;
  if (!probes) {
    at = o.pacer.reserve(now, latest);
    if (at < o.pacer.shared.holdUntil) holdProbe = o;
    // A call that waits for the origin's slot is no probe of the route's hold: taken at that
    // slot, the probe would hold back the route's next one until long after it is due.
    at = r.pacer.reserve(at, latest, at <= now);
    if (at < r.pacer.shared.holdUntil) holdProbe = r;
  }
  // Only a send that waits (or a probe) can come too late to be of use: a plain one that goes
  // now always may.
  if (at > latest && (at > now || probes)) {
    if (probes) giveBack(probes, now);
    // The pacers' `proof` is as of their `reserve` just above; a probe reserves nothing, but is
    // late only once `now` is past `latest`, so that its proof (due by `latest` at the latest,
    // less `now`) is below 0 whatever they say.
    return {
      kind: 'late',
      at,
      proof: Math.min(Math.max(o.pacer.proof, r.pacer.proof), latest) - now,
    };
  }
  o.inFlight++;
  r.inFlight++;
  if (!probes && !holdProbe && at <= now) {
    if (!r.plain) r.plain = { origin: o, route: r };
    return { kind: 'go', pass: r.plain, at };
  }
  return {
    kind: 'go',
    pass: {
      origin: o,
      route: r,
      probes,
      holdProbe,
      decided: [o.pacer.shared.decidedAt, r.pacer.shared.decidedAt],
    },
    at,
  };
}

/**
 * Whether the quota the response names (`RateLimit.bucket`) was announced on another route of
 * the origin: that is the evidence routes share it. Notes the route that first announced it.
 */
function isAnnouncedElsewhere(o: Scope, r: Scope, ending: Ending): boolean {
  const id = ending.rateLimit?.bucket;
  if (id === undefined) return false;
  if (!o.quotas) o.quotas = new Map();
  const first = o.quotas.get(id);
  // An origin keeps 32 quota ids, the first announced: a hostile server cannot grow the map.
  if (first === undefined && o.quotas.size < 32) o.quotas.set(id, r.name);
  return first !== undefined && first !== r.name;
}

/**
 * Whether a throttle met on the pass's route is the whole origin's, on evidence that routes share
 * it: its quota announced on another route, the origin already paced or held, or a second route
 * throttled within `healthyAfterMs`. Each other route then pays at most one throttled request.
 * A limit is never the origin's for what one route's headers say alone: every draft-7 limiter
 * sends its policy, whether mounted on one route or on all.
 */
function isOriginWide(c: Control, { origin: o, route: r }: Pass, ended: Ended): boolean {
  const now = ended.endedAt;
  const last = o.lastThrottle;
  o.lastThrottle = { route: r.name, at: now };
  return (
    isAnnouncedElsewhere(o, r, ended) ||
    isHeld(o, now) ||
    (last !== undefined &&
      last.route !== r.name &&
      now - last.at < c.settings.pacing.healthyAfterMs)
  );
}

/**
 * Counts the attempt: a success for the origin and its route; a failure or throttle for its own
 * scope (the origin's for a fault of the connection, else the route's).
 */
function countOutcome(c: Control, pass: Pass, ended: Ended): void {
  const { origin: o, route: r, probes = [] } = pass;
  const { result, endedAt: now } = ended;
  const counted = !result ? [] : result === 'success' ? [o, r] : [ended.originWide ? o : r];
  for (const scope of counted) {
    const before = scope.breaker?.state;
    (probes.includes(scope) ? recordProbe : record)(scope, now, result as Counted);
    // A route's breaker opened while another route's was open too, and no route succeeded in the
    // origin's window: the origin is broken (only a route's breaker opening escalates to its
    // origin). Two broken routes among healthy ones are two broken routes.
    if (
      scope !== o &&
      before === 'closed' &&
      scope.breaker?.state === 'open' &&
      !o.window.counts(now).successes
    ) {
      for (const other of c.scopes.values()) {
        if (other.parent === o && other !== r && !isClosed(other)) {
          o.breaker?.trip(now);
          break;
        }
      }
    }
  }
  for (const scope of probes) {
    // A probe not counted is given back: one of a scope that failed in another says nothing of
    // the first, and one with no result (cancelled, sent back to the gate) nothing of any.
    if (!counted.includes(scope)) scope.breaker?.record(now, undefined, true);
    scope.waiters.wakeAll();
  }
}

/** Tells the pacer of the scope the throttle was met on (or of its origin) what the response said. */
function pace(c: Control, pass: Pass, ended: Ended): void {
  const { origin: o, route: r, holdProbe } = pass;
  const now = ended.endedAt;
  const own = ended.originWide ? o : r;
  const counts = own.window.counts(now);
  const signal =
    c.pacing && ended.result !== undefined
      ? throttleSignal(ended, { ...own, counts }, now)
      : undefined;
  if (!signal) {
    if (own === r) isAnnouncedElsewhere(o, r, ended);
    // A probe that succeeded ends every hold it went through (one held before it was sent: a
    // call that probes the route's hold went through the origin's too).
    if (holdProbe && ended.result === 'success') {
      for (const scope of [o, r]) {
        const { holdUntil, heldAt } = scope.pacer.shared;
        if (holdUntil > now && heldAt <= ended.sentAt) {
          pacerChange(scope, now, (pacer) => pacer.endHold(now));
        }
      }
    }
    // A success that says quota is left beyond the requests in flight ends a pace set before it
    // was sent: the server's count is the client's evidence against a rate it guessed (a policy
    // announced for a bucket that refills in milliseconds, a burst that measured too little).
    // Not while others are seen to spend the quota (the server counting more of it spent than
    // this client's successes over the last second and requests in flight) within
    // `healthyAfterMs`: each client's share would look slow at every window's start.
    const { rateLimit } = ended;
    if (ended.result !== 'success' || !rateLimit) return;
    const { remaining = 0, limit = 0 } = rateLimit;
    for (const scope of [o, r]) {
      const { inFlight } = scope;
      if (limit - remaining > scope.window.counts(now).successes + inFlight) scope.sharedAt = now;
      else if (
        remaining > inFlight &&
        scope.pacer.shared.base &&
        // Never seen (unset): NaN, never less.
        !(now - (scope.sharedAt as number) < c.settings.pacing.healthyAfterMs)
      ) {
        pacerChange(scope, now, (pacer) => pacer.room(now, ended.sentAt));
      }
    }
    return;
  }
  let paced = own;
  // A 429 that names no wait and no quota is no evidence that routes share a limit (a server
  // may answer any route so at random): it goes to the origin only if the origin is paced.
  const originWide = own === r && (isBare(signal) ? isHeld(o, now) : isOriginWide(c, pass, ended));
  if (originWide) {
    paced = o;
    // A signal came with a result (see above).
    if (ended.result !== 'success') record(o, now, ended.result as Counted);
  }
  pacerChange(paced, now, (pacer) => pacer.throttle(now, paced.window.counts(now), signal));
}

/**
 * How the client settles its attempts. Times given on its clock are read on the store's (an
 * ending's `sentAt` too).
 */
function settlerOf(c: Control): (pass: Pass, now: number, ending: Ending) => void {
  return (pass, now, ending) => {
    const { origin: o, route: r } = pass;
    const d = c.settings.store.clockOffset();
    const endedAt = now + d;
    o.inFlight--;
    r.inFlight--;
    if (ending.result === 'success') {
      const took = now - ending.sentAt;
      // The latest success weighs 0.2 in the smoothed latency.
      o.latencyMs = o.latencyMs ? o.latencyMs + 0.2 * (took - o.latencyMs) : took;
      // The success path: a plain success, no probe, nothing its headers say.
      if (pass === r.plain && !ending.rateLimit) {
        record(o, endedAt, 'success');
        record(r, endedAt, 'success');
        return;
      }
    }
    const ended = { ...ending, sentAt: ending.sentAt + d, endedAt };
    countOutcome(c, pass, ended);
    pace(c, pass, ended);
  };
}

/**
 * Whether an attempt let through may still go after waiting for its slot: a breaker may have
 * opened, or the rate been decided again (the slot is then planned again).
 */
function isStillAdmitted({ origin, route, probes = [], decided: d }: Pass): boolean {
  return [origin, route].every(
    (scope, i) =>
      (!d || d[i] === scope.pacer.shared.decidedAt) && (isClosed(scope) || probes.includes(scope)),
  );
}

export function createLoadControl(settings: LoadControlSettings): LoadControl {
  // With the breaker and pacing off (the budget alone), a shared state has nothing to steer.
  const store = ((settings.circuitBreaker || settings.pacing) && settings.store) || memoryStore();
  const scopeSettings: ScopeSettings = {
    ...settings,
    // Pacing off: the pacer only spreads a breaker's release, and is never told of throttling.
    pacing: settings.pacing || DEFAULT_PACING,
    store,
  };
  const scopes = createScopeCache<Scope>(MAX_SCOPES, (scope) => isBusy(scope, storeNow(store)));
  const c: Control = { scopes, settings: scopeSettings, pacing: !!settings.pacing };
  const close = store.watch((key, latest) => {
    const scope = scopes.get(key);
    if (scope) adopt(scope, latest, scopeSettings);
  });
  const settle = settlerOf(c);
  return {
    // Times given on this client's clock are read on the store's.
    admit(where, now, latest) {
      const d = store.clockOffset();
      const verdict = admit(scopesOf(c, where), now + d, latest + d);
      if (!d) return verdict;
      if (verdict.kind === 'wait') return { ...verdict, until: verdict.until - d };
      return { ...verdict, at: verdict.at - d };
    },
    settle,
    isStillAdmitted,
    observe(where, now, ending) {
      const [o, r] = scopesOf(c, where);
      o.inFlight++;
      r.inFlight++;
      settle({ origin: o, route: r }, now, ending);
    },
    waiters: (scope, forSlot) => (forSlot ? scope.slotWaiters : scope.waiters),
    latencyOf: (origin) => scopes.get(origin)?.latencyMs ?? 0,
    standing([origin, route], now) {
      const t = now + store.clockOffset();
      const o = scopes.get(origin);
      const r = scopes.get(routeKey(origin, route));
      // A retry is free of the retry budget when paced, or mostly succeeding (the route's own
      // successes and failures: the origin's connection faults are counted there too).
      const counts = r?.window.counts(t);
      return {
        paced: [o, r].some((scope) => scope && isHeld(scope, t)),
        retryIsFree: !!(
          o &&
          counts &&
          (o.pacer.shared.base ||
            r?.pacer.shared.base ||
            counts.failures + counts.throttles + o.window.counts(t).failures < counts.successes)
        ),
      };
    },
    scopes: () => scopes.values(),
    close,
    now: () => storeNow(store),
    isolate: (origin) => isolate(c, store, origin),
  };
}

/** Holds the origin's breaker open; returns its release (`undefined`: the breaker is off). */
function isolate(c: Control, store: LoadControlStore, origin: string): (() => void) | undefined {
  const { breaker, waiters } = scopeOf(c, origin);
  if (!breaker) return;
  breaker.isolate(storeNow(store));
  let released: true | undefined;
  return () => {
    if (!released) breaker.release(storeNow(store));
    released = true;
    waiters.wakeAll();
  };
}
