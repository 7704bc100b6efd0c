import type { LoadControlStore } from '../contract/store';
import type { RateLimit } from '../http/rate-limit-headers';
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
  type Scope,
  type ScopeSettings,
} from './scope';
import { createScopeCache, lastOf, type ScopeCache } from './scope-cache';
import { memoryStore, storeNow } from './store';
import { throttleSignal } from './throttle-signal';

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
 */
export type Verdict =
  | { readonly kind: 'go'; readonly pass: Pass; readonly at: number }
  | { readonly kind: 'wait'; readonly scope: Scope; readonly until: number }
  | { readonly kind: 'late'; readonly at: number };

/** How an attempt ended, as load control needs it. */
export interface Ending {
  readonly result: AttemptResult;
  /** A fault of the connection (refused, reset before an answer, DNS): it is the origin's. */
  readonly originWide?: boolean;
  readonly status?: number | undefined;
  /** The server's wait: `Retry-After`, else the rate limit's reset. */
  readonly waitMs?: number | undefined;
  readonly rateLimit?: RateLimit | undefined;
  /** When the attempt was sent. */
  readonly sentAt: number;
}

/** A long-lived client may talk to many origins and routes: it keeps the most recent ones. */
export const MAX_SCOPES = 256;

export interface LoadControl {
  admit(origin: string, route: string, now: number, latest: number): Verdict;
  /** Whether an attempt let through may still go after waiting for its slot: a breaker may have opened. */
  isStillAdmitted(pass: Pass): boolean;
  settle(pass: Pass, now: number, ending: Ending): void;
  /** An attempt that did not pass the gate (the interceptor alone sees first attempts fail only). */
  observe(origin: string, route: string, now: number, ending: Ending): void;
  /** Calls `wake` once the scope's breaker changes, or (`forSlot`) once it is no longer paced. */
  subscribe(scope: Scope, startedAt: number, wake: () => void, forSlot?: boolean): () => void;
  /** The smoothed time an attempt to this origin takes. */
  latencyOf(origin: string): number;
  /**
   * What a retry to this route meets: whether pacing holds the route or its origin (paced, or
   * held until a reset), and whether the retry is free of the retry budget (paced, or mostly
   * succeeding).
   */
  standing(origin: string, route: string, now: number): { paced: boolean; retryIsFree: boolean };
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

function scopesOf(c: Control, origin: string, route: string): [Scope, Scope] {
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

/** The breakers' say: the scopes this attempt probes, or the verdict to wait. */
function askBreakers(o: Scope, r: Scope, now: number): Scope[] | Verdict | undefined {
  const byOrigin = o.breaker?.admit(now) ?? 'send';
  if (typeof byOrigin === 'number') return { kind: 'wait', scope: o, until: byOrigin };
  const byRoute = r.breaker?.admit(now) ?? 'send';
  if (typeof byRoute === 'number') {
    if (byOrigin === 'probe') giveBack([o], now);
    return { kind: 'wait', scope: r, until: byRoute };
  }
  // Both closed (the success path): no probe, and no array made to say so.
  if (byOrigin === byRoute && byRoute === 'send') return undefined;
  return [o, r].filter((_, i) => (i ? byRoute : byOrigin) === 'probe');
}

function admit(c: Control, origin: string, route: string, now: number, latest: number): Verdict {
  const [o, r] = scopesOf(c, origin, route);
  const probes = askBreakers(o, r, now);
  if (probes && !Array.isArray(probes)) return probes;
  // A probe is one attempt: it goes at once, not after the slots of the calls before it.
  let at = now;
  let holdProbe: Scope | undefined;
  if (!probes) {
    at = o.pacer.reserve(now, latest);
    if (at < o.pacer.holdUntil) holdProbe = o;
    // A call that waits for the origin's slot is no probe of the route's hold: taken at that
    // slot, the probe would hold back the route's next one until long after it is due.
    at = r.pacer.reserve(at, latest, at <= now);
    if (at < r.pacer.holdUntil) holdProbe = r;
  }
  // Only a send that waits (or a probe) can come too late to be of use: a plain one that goes
  // now always may.
  if (at > latest && (at > now || probes)) {
    if (probes) giveBack(probes, now);
    return { kind: 'late', at };
  }
  o.inFlight++;
  r.inFlight++;
  if (!probes && !holdProbe && at <= now) {
    if (!r.plain) r.plain = { origin: o, route: r };
    return { kind: 'go', pass: r.plain, at };
  }
  const cuts: [number, number] = [o.pacer.cuts, r.pacer.cuts];
  return { kind: 'go', pass: { origin: o, route: r, probes, holdProbe, cuts }, at };
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
 * Whether a throttle met on route `r` is the whole origin's, on evidence that routes share it:
 * its quota announced on another route, the origin already paced or held, or a second route
 * throttled within `healthyAfterMs`. Each other route then pays at most one throttled request.
 * A limit is never the origin's for what one route's headers say alone: every draft-7 limiter
 * sends its policy, whether mounted on one route or on all.
 */
function isOriginWide(c: Control, o: Scope, r: Scope, ending: Ending, now: number): boolean {
  const last = o.lastThrottle;
  o.lastThrottle = { route: r.name, at: now };
  return (
    isAnnouncedElsewhere(o, r, ending) ||
    isHeld(o, now) ||
    (last !== undefined &&
      last.route !== r.name &&
      now - last.at < c.settings.pacing.healthyAfterMs)
  );
}

/** A route's breaker opened while another route's was open too: the origin is broken. */
function escalate(c: Control, o: Scope, opened: Scope, now: number): void {
  for (const scope of c.scopes.values()) {
    if (scope.parent === o && scope !== opened && !isClosed(scope)) {
      o.breaker?.trip(now);
      return;
    }
  }
}

/**
 * Counts the attempt: a success for the origin and its route; a failure or throttle for its own
 * scope (the origin's for a fault of the connection, else the route's). Returns that scope.
 */
function countOutcome(c: Control, pass: Pass, now: number, ending: Ending): Scope {
  const { origin: o, route: r, probes = [] } = pass;
  const { result } = ending;
  const own = ending.originWide ? o : r;
  const counted = !result ? [] : result === 'success' ? [o, r] : [own];
  for (const scope of counted) {
    const before = scope.breaker?.state;
    record(scope, now, result as Counted, probes.includes(scope));
    if (scope !== o && before === 'closed' && scope.breaker?.state === 'open') {
      escalate(c, o, scope, now);
    }
  }
  for (const scope of probes) {
    // A probe not counted is given back: one of a scope that failed in another says nothing of
    // the first, and one with no result (cancelled, sent back to the gate) nothing of any.
    if (!counted.includes(scope)) scope.breaker?.record(now, undefined, true);
    scope.waiters.wakeAll();
  }
  return own;
}

/** Tells the pacer of the scope the throttle was met on (or of its origin) what the response said. */
function pace(c: Control, pass: Pass, own: Scope, now: number, ending: Ending): void {
  const { origin: o, route: r, holdProbe } = pass;
  const counts = own.window.counts(now);
  const signal =
    c.pacing && ending.result !== undefined
      ? throttleSignal(ending, { ...own, counts }, now)
      : undefined;
  if (!signal) {
    if (own === r) isAnnouncedElsewhere(o, r, ending);
    // A probe that succeeded ends every hold it went through (one held before it was sent: a
    // call that probes the route's hold went through the origin's too).
    if (holdProbe && ending.result === 'success') {
      for (const scope of [o, r]) {
        const { holdUntil, heldAt } = scope.pacer.state;
        if (holdUntil > now && heldAt <= ending.sentAt) {
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
    const { rateLimit } = ending;
    if (ending.result !== 'success' || !rateLimit) return;
    const { remaining = 0, limit = 0 } = rateLimit;
    for (const scope of [o, r]) {
      const { inFlight } = scope;
      if (limit - remaining > scope.window.counts(now).successes + inFlight) scope.sharedAt = now;
      else if (
        remaining > inFlight &&
        scope.pacer.paced &&
        !(now - (scope.sharedAt ?? -Infinity) < c.settings.pacing.healthyAfterMs)
      ) {
        pacerChange(scope, now, (pacer) => pacer.room(now, ending.sentAt));
      }
    }
    return;
  }
  let paced = own;
  // A 429 that names no wait and no quota is no evidence that routes share a limit (a server
  // may answer any route so at random): it goes to the origin only if the origin is paced.
  const originWide =
    own === r && (isBare(signal) ? isHeld(o, now) : isOriginWide(c, o, r, ending, now));
  if (originWide) {
    paced = o;
    // A signal came with a result (see above).
    if (ending.result !== 'success') record(o, now, ending.result as Counted, false);
  }
  const replacesHold = holdProbe === paced || holdProbe === own;
  const pacedCounts = paced.window.counts(now);
  pacerChange(paced, now, (pacer) => pacer.throttle(now, pacedCounts, { ...signal, replacesHold }));
}

function settle(c: Control, pass: Pass, now: number, ending: Ending): void {
  const { origin: o, route: r } = pass;
  o.inFlight--;
  r.inFlight--;
  if (ending.result === 'success') {
    const took = now - ending.sentAt;
    // The latest success weighs 0.2 in the smoothed latency.
    o.latencyMs = o.latencyMs ? o.latencyMs + 0.2 * (took - o.latencyMs) : took;
    // The success path: a plain success, no probe, nothing its headers say.
    if (pass === r.plain && !ending.rateLimit) {
      record(o, now, 'success', false);
      record(r, now, 'success', false);
      return;
    }
  }
  pace(c, pass, countOutcome(c, pass, now, ending), now, ending);
}

/**
 * Whether an attempt let through may still go after waiting for its slot: a breaker may have
 * opened, or the rate been cut.
 */
function isStillAdmitted({ origin, route, probes = [], cuts }: Pass): boolean {
  return (
    (!cuts || (cuts[0] === origin.pacer.cuts && cuts[1] === route.pacer.cuts)) &&
    [origin, route].every((scope) => isClosed(scope) || probes.includes(scope))
  );
}

/**
 * Whether a retry to route `r` of origin `o` is free of the retry budget: paced, or mostly
 * succeeding (the route's own successes and failures: the origin's connection faults are counted
 * there too).
 */
function isBudgetFree(o: Scope, r: Scope, now: number): boolean {
  const { successes, failures, throttled } = r.window.counts(now);
  const faults = o.window.counts(now).failures;
  return o.pacer.paced || r.pacer.paced || failures + throttled + faults < successes;
}

export function createLoadControl(settings: LoadControlSettings): LoadControl {
  const store = settings.store ?? memoryStore();
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
  // Times given on this client's clock are read on the store's; an ending's `sentAt` is on it too.
  const settleOn = (pass: Pass, now: number, ending: Ending): void => {
    const d = store.clockOffset();
    settle(c, pass, now + d, d ? { ...ending, sentAt: ending.sentAt + d } : ending);
  };
  return {
    admit(origin, route, now, latest) {
      const d = store.clockOffset();
      const verdict = admit(c, origin, route, now + d, latest + d);
      if (!d) return verdict;
      if (verdict.kind === 'wait') return { ...verdict, until: verdict.until - d };
      return { ...verdict, at: verdict.at - d };
    },
    settle: settleOn,
    isStillAdmitted,
    observe(origin, route, now, ending) {
      const [o, r] = scopesOf(c, origin, route);
      o.inFlight++;
      r.inFlight++;
      settleOn({ origin: o, route: r }, now, ending);
    },
    subscribe: (scope, startedAt, wake, forSlot) =>
      (forSlot ? scope.slotWaiters : scope.waiters).add(startedAt, wake),
    latencyOf: (origin) => scopes.get(origin)?.latencyMs ?? 0,
    standing(origin, route, now) {
      const t = now + store.clockOffset();
      const o = scopes.get(origin);
      const r = scopes.get(routeKey(origin, route));
      return {
        paced: [o, r].some((scope) => scope && isHeld(scope, t)),
        retryIsFree: !!o && !!r && isBudgetFree(o, r, t),
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
  let held = true;
  return () => {
    if (held) breaker.release(storeNow(store));
    held = false;
    waiters.wakeAll();
  };
}
