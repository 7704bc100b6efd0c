import {
  type CircuitBreaker,
  type CircuitBreakerSettings,
  createCircuitBreaker,
} from './circuit-breaker';
import { now as clockNow } from './clock';
import { publish } from './metrics';
import { DEFAULT_PACING } from './options';
import { type AttemptResult, createOutcomeWindow, type OutcomeWindow } from './outcome-window';
import { createPacer, PACING_WINDOW_MS, type Pacer, type PacingSettings } from './pacer';
import type { RateLimit } from './rate-limit-headers';
import { createScopeCache } from './scope-cache';
import { throttleSignal } from './throttle-signal';

export interface LoadControlSettings {
  readonly circuitBreaker: CircuitBreakerSettings | false;
  readonly pacing: PacingSettings | false;
  readonly random: () => number;
  /** While a quota holds a scope for longer than this, one probe per this long checks it. */
  readonly probeEveryMs: number;
}

interface Waiter {
  readonly startedAt: number;
  readonly wake: () => void;
}

/**
 * The load-control state of one scope: an origin (connection faults, API-wide limits) or one
 * route of it (its own failures and throttles).
 */
export interface Scope {
  /** The origin, or the origin and the route. */
  readonly name: string;
  /** Routes only: the scope of their origin. */
  readonly parent: Scope | undefined;
  /** Over `PACING_WINDOW_MS`: the rate the scope accepts, and whether it mostly fails. */
  readonly window: OutcomeWindow;
  readonly breaker: CircuitBreaker | undefined;
  /** The breaker counts attempts in `window` (it has the same length): not counted twice. */
  readonly shared: boolean;
  readonly pacer: Pacer;
  inFlight: number;
  /** Successes per second measured while the scope was healthy. */
  lastGoodRate: number;
  lastSuccessAt: number;
  /** A smoothed time an attempt takes to succeed: a slot with less time left is not worth it. */
  latencyMs: number;
  /** Calls waiting for the breaker, woken oldest first when it changes. */
  readonly waiters: Waiter[];
  /** Calls waiting for a pacing slot, woken (to go at once) when the scope is no longer paced. */
  readonly slotWaiters: Waiter[];
  /** Origins only: the route that was last throttled, and when. */
  lastThrottle?: { readonly route: string; readonly at: number } | undefined;
  /** The pass of every plain attempt (made once: the success path allocates none). */
  plain?: Pass;
}

/** An attempt let through, to be settled with how it ended. */
export interface Pass {
  readonly origin: Scope;
  readonly route: Scope;
  /** The scopes whose breaker this attempt probes. */
  readonly probes?: readonly Scope[];
  /** The scope whose quota hold this attempt probes. */
  readonly holdProbe?: Scope | undefined;
  /** For a slot ahead: the cuts of the origin's and the route's pacers when it was reserved. */
  readonly cuts?: readonly [number, number];
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

const NO_PROBES: readonly Scope[] = [];

// Weight of the latest success in the smoothed latency.
const LATENCY_WEIGHT = 0.2;

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
  /** Whether pacing holds this route or its origin (paced, or held until a reset). */
  isPaced(origin: string, route: string, now: number): boolean;
  /** Whether a retry to this route is free of the retry budget: paced, or mostly succeeding. */
  isRetryBudgetFree(origin: string, route: string, now: number): boolean;
  /** The scopes it knows (view.ts). */
  scopes(): Iterable<Scope>;
  /** Holds the origin's breaker open (`undefined`: the breaker is off); returns its release. */
  isolate(origin: string): (() => void) | undefined;
}

/** Where a scope is: its origin, and its route when it is a route's. */
export const whereOf = ({ name, parent }: Scope): { origin: string; route?: string } =>
  parent ? { origin: parent.name, route: name.slice(parent.name.length) } : { origin: name };

function wakeAll(waiting: Waiter[]): void {
  const waiters = waiting.splice(0).sort((a, b) => a.startedAt - b.startedAt);
  for (const waiter of waiters) waiter.wake();
}

/** Runs `change` on the scope's pacer; if it stops pacing, the calls waiting for slots go. */
function pacerChange(scope: Scope, now: number, change: (pacer: Pacer) => void): void {
  const wasPaced = scope.pacer.paced;
  change(scope.pacer);
  if (wasPaced && !scope.pacer.paced) wakeAll(scope.slotWaiters);
  publish('pacing', () => ({
    ...whereOf(scope),
    ratePerSecond: scope.pacer.rate(now),
    holdMs: Math.max(0, scope.pacer.holdUntil - now),
  }));
}

const isOpen = (scope: Scope): boolean => scope.breaker?.state === 'open';

const isBusy = (scope: Scope): boolean =>
  scope.inFlight > 0 ||
  scope.waiters.length > 0 ||
  scope.slotWaiters.length > 0 ||
  scope.pacer.paced ||
  scope.pacer.holdUntil > clockNow() ||
  (scope.breaker !== undefined && scope.breaker.state !== 'closed');

export function createLoadControl(settings: LoadControlSettings): LoadControl {
  const scopes = createScopeCache<Scope>(MAX_SCOPES, isBusy);
  const { circuitBreaker, random } = settings;
  // Pacing off: the pacer only spreads a breaker's release, and is never told of throttling.
  const pacing: PacingSettings = settings.pacing || DEFAULT_PACING;
  const routeKey = (origin: string, route: string): string => `${origin}/${route}`;

  function newScope(name: string, parent?: Scope, route?: string): Scope {
    const window = createOutcomeWindow(PACING_WINDOW_MS);
    const shared = circuitBreaker && circuitBreaker.windowMs === PACING_WINDOW_MS;
    const scope: Scope = {
      name,
      parent,
      window,
      shared: !!shared,
      breaker: undefined,
      pacer: createPacer(pacing, random, settings.probeEveryMs),
      inFlight: 0,
      lastGoodRate: 0,
      lastSuccessAt: -Infinity,
      latencyMs: 0,
      waiters: [],
      slotWaiters: [],
    };
    if (circuitBreaker) {
      const ownWindow = shared ? window : createOutcomeWindow(circuitBreaker.windowMs);
      (scope as { breaker: CircuitBreaker }).breaker = createCircuitBreaker(
        parent ? { origin: parent.name, route } : { origin: name },
        circuitBreaker,
        ownWindow,
        random,
        (now) => {
          // Released oldest first, at the rate the scope handled before it failed (or spread
          // over a second when that is unknown); with neither, there is nothing to spread.
          const rate = scope.lastGoodRate || scope.waiters.length;
          if (rate) pacerChange(scope, now, (pacer) => pacer.release(now, rate));
        },
      );
    }
    return scope;
  }

  const originScope = (origin: string): Scope => scopes.use(origin, () => newScope(origin));
  const routeScope = (o: Scope, route: string): Scope => {
    const name = routeKey(o.name, route);
    return scopes.use(name, () => newScope(name, o, `/${route}`));
  };

  /** Gives back the probes an attempt took, for an attempt that will not go. */
  function giveBack(probes: readonly Scope[], now: number): void {
    for (const scope of probes) {
      scope.breaker?.record(now, undefined, true);
      wakeAll(scope.waiters);
    }
  }

  /**
   * Whether a throttle met on route `r` is the whole origin's: an API-wide limit (named so by
   * the headers, already pacing or holding the origin, or met on a second route within
   * `healthyAfterMs`). Each other route then pays at most one throttled request.
   */
  function isOriginWide(o: Scope, r: Scope, ending: Ending, now: number): boolean {
    const last = o.lastThrottle;
    o.lastThrottle = { route: r.name, at: now };
    return (
      !!ending.rateLimit?.shared ||
      o.pacer.paced ||
      o.pacer.holdUntil > now ||
      (last !== undefined && last.route !== r.name && now - last.at < pacing.healthyAfterMs)
    );
  }

  function record(scope: Scope, now: number, result: AttemptResult, probe: boolean): void {
    if (result === undefined) return;
    if (result === 'success') scope.lastSuccessAt = now;
    if (!scope.shared || !scope.breaker) scope.window.add(now, result);
    scope.breaker?.record(now, result, probe);
    if (result !== 'success') {
      // The first failures after a healthy spell tell the rate it handled (a window that is
      // already half failures has lost the successes that measured it).
      const { successes, failures, throttled, spanMs } = scope.window.counts(now);
      if (4 * (failures + throttled) < successes) {
        scope.lastGoodRate = (successes * 1000) / Math.max(spanMs, 100);
      }
    }
  }

  /** A route's breaker opened while another route's was open too: the origin is broken. */
  function escalate(o: Scope, opened: Scope, now: number): void {
    for (const scope of scopes.values()) {
      if (scope.parent === o && scope !== opened && scope.breaker?.state !== 'closed') {
        o.breaker?.trip(now);
        return;
      }
    }
  }

  return {
    admit(origin, route, now, latest) {
      const o = originScope(origin);
      const r = routeScope(o, route);
      const byOrigin = o.breaker ? o.breaker.admit(now) : 'send';
      if (typeof byOrigin === 'number') return { kind: 'wait', scope: o, until: byOrigin };
      const byRoute = r.breaker ? r.breaker.admit(now) : 'send';
      if (typeof byRoute === 'number') {
        if (byOrigin === 'probe') giveBack([o], now);
        return { kind: 'wait', scope: r, until: byRoute };
      }
      const probes =
        byOrigin === 'probe'
          ? byRoute === 'probe'
            ? [o, r]
            : [o]
          : byRoute === 'probe'
            ? [r]
            : undefined;
      // A probe is one attempt: it goes at once, not after the slots of the calls before it.
      let at = now;
      let holdProbe: Scope | undefined;
      if (!probes) {
        at = o.pacer.reserve(now, latest);
        if (at < o.pacer.holdUntil) holdProbe = o;
        at = r.pacer.reserve(at, latest);
        if (at < r.pacer.holdUntil) holdProbe = r;
      }
      // Only a send that waits (or a probe) can come too late to be of use: a plain one that
      // goes now always may.
      if (at > latest && (at > now || probes)) {
        if (probes) giveBack(probes, now);
        return { kind: 'late', at };
      }
      o.inFlight++;
      r.inFlight++;
      if (!probes && !holdProbe && at <= now) {
        r.plain ??= { origin: o, route: r };
        return { kind: 'go', pass: r.plain, at };
      }
      const cuts: [number, number] = [o.pacer.cuts, r.pacer.cuts];
      return { kind: 'go', pass: { origin: o, route: r, probes, holdProbe, cuts }, at };
    },

    settle(pass, now, ending) {
      const { origin: o, route: r, probes = NO_PROBES } = pass;
      o.inFlight--;
      r.inFlight--;
      const { result } = ending;
      if (result === 'success') {
        const took = now - ending.sentAt;
        o.latencyMs = o.latencyMs ? o.latencyMs + LATENCY_WEIGHT * (took - o.latencyMs) : took;
        // The success path: a plain success, no probe, nothing its headers say.
        if (pass === r.plain && !ending.rateLimit) {
          record(o, now, result, false);
          record(r, now, result, false);
          return;
        }
      }
      // A success counts for the origin and its route; a failure or throttle for its own scope:
      // the origin's for a fault of the connection, else the route's.
      const own = ending.originWide ? o : r;
      const recorded = result === undefined ? [] : result === 'success' ? [o, r] : [own];
      for (const scope of recorded) {
        const before = scope.breaker?.state;
        record(scope, now, result, probes.includes(scope));
        // A route's breaker that just opened while another route's is open: the origin is broken.
        if (scope !== o && before === 'closed' && isOpen(scope)) escalate(o, scope, now);
      }
      for (const scope of probes) {
        // A probe of one scope that failed in another says nothing of the first: given back.
        if (scope !== own && result !== 'success') scope.breaker?.record(now, undefined, true);
        wakeAll(scope.waiters);
      }
      const signal =
        settings.pacing && result !== undefined
          ? throttleSignal(
              ending,
              {
                counts: own.window.counts(now),
                inFlight: own.inFlight,
                lastSuccessAt: own.lastSuccessAt,
              },
              now,
            )
          : undefined;
      const { holdProbe } = pass;
      if (signal) {
        let paced = own;
        if (own === r && isOriginWide(o, r, ending, now)) {
          paced = o;
          if (result !== 'success') record(o, now, result, false);
        }
        const counts = paced.window.counts(now);
        const replace = holdProbe === paced || holdProbe === own;
        pacerChange(paced, now, (pacer) => pacer.throttle(now, counts, signal, replace));
      } else if (holdProbe && result === 'success') {
        pacerChange(holdProbe, now, (pacer) => pacer.endHold(now));
      }
    },

    isStillAdmitted({ origin, route, probes = [], cuts }) {
      return (
        (!cuts || (cuts[0] === origin.pacer.cuts && cuts[1] === route.pacer.cuts)) &&
        [origin, route].every(
          (scope) => !scope.breaker || scope.breaker.state === 'closed' || probes.includes(scope),
        )
      );
    },

    observe(origin, route, now, ending) {
      const o = originScope(origin);
      const r = routeScope(o, route);
      o.inFlight++;
      r.inFlight++;
      this.settle({ origin: o, route: r }, now, ending);
    },

    subscribe(scope, startedAt, wake, forSlot = false) {
      const waiters = forSlot ? scope.slotWaiters : scope.waiters;
      const waiter = { startedAt, wake };
      waiters.push(waiter);
      return () => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
      };
    },

    latencyOf(origin) {
      return scopes.get(origin)?.latencyMs ?? 0;
    },

    isPaced(origin, route, now) {
      return [scopes.get(origin), scopes.get(routeKey(origin, route))].some(
        (scope) => scope && (scope.pacer.paced || scope.pacer.holdUntil > now),
      );
    },

    isRetryBudgetFree(origin, route, now) {
      const o = scopes.get(origin);
      const r = scopes.get(routeKey(origin, route));
      if (!o || !r) return false;
      // The route's own successes and failures: the origin's connection faults are counted there too.
      const { successes, failures, throttled } = r.window.counts(now);
      const faults = o.window.counts(now).failures;
      return o.pacer.paced || r.pacer.paced || failures + throttled + faults < successes;
    },

    scopes: () => scopes.values(),

    isolate(origin) {
      const { breaker, waiters } = originScope(origin);
      if (!breaker) return;
      breaker.isolate(clockNow());
      let held = true;
      return () => {
        if (held) breaker.release(clockNow());
        held = false;
        wakeAll(waiters);
      };
    },
  };
}
