import type { LoadControlStore, SharedScope } from '../contract/store';
import { publish } from '../runtime/metrics';
import {
  type CircuitBreaker,
  type CircuitBreakerSettings,
  CLOSED,
  createCircuitBreaker,
} from './circuit-breaker';
import { type AttemptResult, createOutcomeWindow, type OutcomeWindow } from './outcome-window';
import { createPacer, PACING_WINDOW_MS, type Pacer, type PacingSettings } from './pacer';
import { storeNow } from './store';
import { bounded } from './store-guard';
import { createWaitQueue, type WaitQueue } from './wait-queue';

/**
 * The load-control state of one scope: an origin (connection faults, API-wide limits) or one
 * route of it (its own failures and throttles). Its pacer's and breaker's state is shared
 * through the store; the rest is this client's own.
 */
export interface Scope {
  /** The origin, or the origin and the route. */
  readonly name: string;
  /** Routes only: the scope of their origin. */
  readonly parent: Scope | undefined;
  /** Over `PACING_WINDOW_MS`: the rate the scope accepts, and whether it mostly fails. */
  readonly window: OutcomeWindow;
  /** Unset when the breaker is off. */
  readonly breaker?: CircuitBreaker | undefined;
  /** The breaker counts attempts in `window` (it has the same length): not counted twice. */
  readonly shared: boolean;
  readonly pacer: Pacer;
  /** The version of the shared state the store last reported (a change made here counts once it does). */
  version: number;
  inFlight: number;
  /** Successes per second measured while the scope was healthy (none yet: unset). */
  lastGoodRate?: number;
  /** When the scope last succeeded (none yet: unset). */
  lastSuccessAt?: number;
  /**
   * A smoothed time an attempt takes to succeed: a slot with less time left is not worth it (no
   * success yet: unset).
   */
  latencyMs?: number;
  /** Calls waiting for the breaker, woken when it changes. */
  readonly waiters: WaitQueue;
  /** Calls waiting for a pacing slot, woken (to go at once) when the scope is no longer paced. */
  readonly slotWaiters: WaitQueue;
  /** Origins only: the quotas (ids the headers name) and the route each was first announced on. */
  quotas?: Map<string, string>;
  /**
   * When a success last said that other clients spend the scope's quota too: the server counted
   * more of it spent than this client's successes and requests in flight (load-control.ts).
   */
  sharedAt?: number;
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
  readonly probes?: readonly Scope[] | undefined;
  /** The scope whose quota hold this attempt probes. */
  readonly holdProbe?: Scope | undefined;
  /**
   * For a slot ahead: when the origin's and the route's rates were last decided as it was reserved.
   * A slot planned before a later decision is planned again.
   */
  readonly decided?: readonly [number, number];
}

export interface ScopeSettings {
  readonly circuitBreaker: CircuitBreakerSettings | false;
  readonly pacing: PacingSettings;
  readonly random: () => number;
  readonly probeEveryMs: number;
  readonly store: LoadControlStore;
}

/** Where a scope is: its origin, and its route when it is a route's. */
export const whereOf = ({ name, parent }: Scope): { origin: string; route?: string } =>
  parent ? { origin: parent.name, route: name.slice(parent.name.length) } : { origin: name };

/**
 * Runs `change` on the scope's pacer. If it stops pacing, or cuts the rate, the calls waiting for
 * slots wake, oldest first, to plan their slots again.
 */
export function pacerChange(scope: Scope, now: number, change: (pacer: Pacer) => void): void {
  const was = scope.pacer.shared;
  change(scope.pacer);
  const s = scope.pacer.shared;
  if ((was.base && !s.base) || s.cuts !== was.cuts) scope.slotWaiters.wakeAll();
  publish('pacing', () => ({
    ...whereOf(scope),
    ratePerSecond: scope.pacer.rate(now),
    holdMs: Math.max(0, scope.pacer.shared.holdUntil - now),
  }));
}

/** A breaker's release with no rate known spreads the waiting calls over this long. */
const SPREAD_MS = 1000;

/** The scope's shared state as known here. */
const sharedOf = (scope: Scope): SharedScope => ({
  version: scope.version,
  pace: scope.pacer.shared,
  breaker: scope.breaker?.shared ?? CLOSED,
});

/**
 * Takes the state another client left, bounded by this client's rules (`store-guard.ts`): the
 * pacer's, then the breaker's (which may wake calls).
 */
export function adopt(scope: Scope, reported: SharedScope, settings: ScopeSettings): void {
  if (reported.version <= scope.version) return;
  const now = storeNow(settings.store);
  const latest = bounded(reported, settings, now);
  scope.version = latest.version;
  pacerChange(scope, now, (pacer) => {
    pacer.shared = latest.pace;
  });
  scope.breaker?.adopt(latest.breaker, now);
  scope.waiters.wakeAll();
}

export function newScope(settings: ScopeSettings, name: string, parent?: Scope): Scope {
  const { circuitBreaker, random, store } = settings;
  const window = createOutcomeWindow(PACING_WINDOW_MS);
  const shared = circuitBreaker && circuitBreaker.windowMs === PACING_WINDOW_MS;
  // The version is the store's to count: it reports the state it kept, with its version.
  const changeOf =
    <K extends 'pace' | 'breaker'>(key: K) =>
    (make: (s: SharedScope[K]) => SharedScope[K]): SharedScope[K] =>
      store.update(name, sharedOf(scope), (s) => ({ ...s, [key]: make(s[key]) }))[key];
  const share = (): number => 1 / Math.max(1, store.clients());
  const scope: Scope = {
    ...{ name, parent, window, shared, version: 0 },
    pacer: createPacer(settings, {
      change: changeOf('pace'),
      share,
    }),
    inFlight: 0,
    waiters: createWaitQueue(),
    slotWaiters: createWaitQueue(),
  };
  if (circuitBreaker) {
    // Released oldest first, at the rate the scope handled before it failed, or spread over a
    // second when that is unknown; with neither, there is nothing to spread. Both are this
    // client's: the rate released is the fleet's, as many times that as clients share it. A
    // scope that never succeeded here (an origin down since this client started) paces the
    // spread's second only (its signal dated back so that `healthyAfterMs` ends with it): it is
    // no rate the origin was seen to take. One that did (a fleet's client that learnt of the
    // open through the store measured no rate) keeps it paced for `healthyAfterMs`.
    const onClose = (now: number): void => {
      const good = scope.lastGoodRate;
      const rate = (good || scope.waiters.size) * store.clients();
      const signalAt =
        good || scope.lastSuccessAt != null
          ? now
          : now + SPREAD_MS - settings.pacing.healthyAfterMs;
      if (rate) pacerChange(scope, now, (pacer) => pacer.release(now, rate, signalAt));
    };
    (scope as { breaker: CircuitBreaker }).breaker = createCircuitBreaker({
      scope: whereOf(scope),
      settings: circuitBreaker,
      window: shared ? window : createOutcomeWindow(circuitBreaker.windowMs),
      random,
      onClose,
      sharing: {
        change: changeOf('breaker'),
        lease: () => store.lease(name, circuitBreaker.breakDurationMs),
        unlease: () => store.unlease(name),
        wake: () => scope.waiters.wakeAll(),
        share,
      },
    });
  }
  const latest = store.latest(name);
  if (latest) adopt(scope, latest, settings);
  return scope;
}

/** A result that is counted: an attempt with none (cancelled, sent back to the gate) is not. */
export type Counted = Exclude<AttemptResult, undefined>;

/**
 * What counts an attempt's result in a scope's window and breaker: the result of the breaker's
 * `probe` (which closes or opens it again, and is not counted in its window), or of any other.
 */
const counter =
  (probe: boolean) =>
  (scope: Scope, now: number, result: Counted): void => {
    // A shared window (the scope has a breaker) is counted in by the breaker.
    if (!scope.shared) scope.window.add(now, result);
    scope.breaker?.record(now, result, probe);
    if (result === 'success') scope.lastSuccessAt = now;
    else {
      // The first failures after a healthy spell tell the rate it handled (a window that is
      // already a fifth failures has lost the successes that measured it), and its origin's: by
      // the time its routes' breakers open the origin, the origin's window holds no success.
      const { successes, failures, throttles } = scope.window.counts(now);
      if (4 * (failures + throttles) < successes) {
        for (const healthy of [scope, scope.parent]) {
          if (!healthy) break;
          const counts = healthy.window.counts(now);
          healthy.lastGoodRate = (counts.successes * 1000) / Math.max(counts.spanMs, 100);
        }
      }
    }
  };

/** Counts an attempt's result in the scope's window and breaker. */
export const record = counter(false);

/** Counts the result of the attempt that probed the scope's breaker. */
export const recordProbe = counter(true);

/** Whether pacing holds the scope: paced, or held until a reset. */
export const isHeld = ({ pacer }: Scope, now: number): boolean =>
  !!pacer.shared.base || pacer.shared.holdUntil > now;

/** Whether the scope's breaker lets attempts through (closed, or no breaker). */
export const isClosed = ({ breaker }: Scope): boolean => !breaker || breaker.state === 'closed';

/** A scope the cache must keep: forgetting it would send its waiting calls into a dead origin. */
export const isBusy = (scope: Scope, now: number): boolean =>
  scope.inFlight + scope.waiters.size + scope.slotWaiters.size > 0 ||
  isHeld(scope, now) ||
  !isClosed(scope);
