import {
  type CircuitBreaker,
  type CircuitBreakerSettings,
  createCircuitBreaker,
} from './circuit-breaker';
import { DEFAULT_PACING } from './options';
import { createOutcomeWindow, type OutcomeWindow } from './outcome-window';
import {
  createPacer,
  PACING_WINDOW_MS,
  type Pacer,
  type PacingSettings,
  type Signal,
} from './pacer';
import type { RateLimit } from './rate-limit-headers';

export interface LoadControlSettings {
  readonly circuitBreaker: CircuitBreakerSettings | false;
  readonly pacing: PacingSettings | false;
  readonly random: () => number;
}

/** An attempt let through, to be settled with how it ended. */
export interface Pass {
  readonly origin: OriginState;
  readonly probe: boolean;
}

/**
 * What the gate says to an attempt: go at `at`; or wait for the breaker until `until` (`Infinity`:
 * until woken) and ask again; or `late`: the pacer has no slot before the deadline.
 */
export type Verdict =
  | { readonly pass: Pass; readonly at: number }
  | { readonly pass?: undefined; readonly until: number }
  | { readonly pass?: undefined; readonly late: true };

/** How an attempt ended, as the gate needs it. */
export interface Ending {
  /** `undefined`: canceled, or a fault that says nothing of the origin; it does not count. */
  readonly failed: boolean | undefined;
  readonly status?: number | undefined;
  /** The server's wait: `Retry-After`, else the rate limit's reset. */
  readonly waitMs?: number | undefined;
  readonly rateLimit?: RateLimit | undefined;
}

interface Waiter {
  readonly startedAt: number;
  readonly wake: () => void;
}

interface OriginState {
  /** Over `PACING_WINDOW_MS`: the rate the origin accepts, and whether it mostly fails. */
  readonly window: OutcomeWindow;
  breaker: CircuitBreaker | undefined;
  /** The breaker counts attempts in `window` (it has the same length): not counted twice. */
  shared: boolean;
  readonly pacer: Pacer;
  inFlight: number;
  /** Successes per second measured while the origin was healthy. */
  lastGoodRate: number;
  lastSuccessAt: number;
  /** The pass of every attempt but a probe (made once: the success path allocates none). */
  send?: Pass;
  /** Calls waiting for the breaker, woken oldest first when it changes. */
  readonly waiters: Waiter[];
  /** Calls waiting for a pacing slot, woken (to go at once) when the origin is no longer paced. */
  readonly slotWaiters: Waiter[];
}

// Attempts the pacing window must hold before a 503 may count as an overload.
const MIN_OVERLOAD_SAMPLE = 20;

/** A long-lived client may talk to many origins: it keeps the state of the most recent ones. */
export const MAX_ORIGINS = 100;

export interface LoadControl {
  admit(origin: string, now: number, latest: number): Verdict;
  /** Whether an attempt let through may still go after waiting for its slot: the breaker may have opened. */
  mayStillGo(pass: Pass): boolean;
  settle(pass: Pass, now: number, ending: Ending): void;
  /** An attempt that did not pass the gate (the interceptor alone sees first attempts fail only). */
  observe(origin: string, now: number, ending: Ending): void;
  /** Calls `wake` once the origin's breaker changes; returns the function that unsubscribes. */
  onChange(origin: string, startedAt: number, wake: () => void, forSlot?: boolean): () => void;
  /** Whether a retry to this origin is free of the retry budget: paced, or mostly succeeding. */
  retryIsFree(origin: string, now: number): boolean;
}

export function createLoadControl(settings: LoadControlSettings): LoadControl {
  const origins = new Map<string, OriginState>();
  const { circuitBreaker, random } = settings;
  // Pacing off: the pacer only spreads a breaker's release, and is never told of throttling.
  const pacing: PacingSettings = settings.pacing || DEFAULT_PACING;

  function wakeAll(waiting: Waiter[]): void {
    const waiters = waiting.splice(0).sort((a, b) => a.startedAt - b.startedAt);
    for (const waiter of waiters) waiter.wake();
  }

  /** Runs `change` on the origin's pacer; if it stops pacing, the calls waiting for slots go. */
  function pacerChange<T>(state: OriginState, change: (pacer: Pacer) => T): T {
    const wasPaced = state.pacer.paced;
    const result = change(state.pacer);
    if (wasPaced && !state.pacer.paced) wakeAll(state.slotWaiters);
    return result;
  }

  let latest: OriginState | undefined;
  function originState(origin: string): OriginState {
    let state = origins.get(origin);
    if (state === latest && state) return state;
    if (state) {
      // Most recently used last, so the first is the one to forget.
      origins.delete(origin);
    } else {
      const created: OriginState = {
        window: createOutcomeWindow(PACING_WINDOW_MS),
        pacer: createPacer(pacing, random),
        inFlight: 0,
        lastGoodRate: 0,
        lastSuccessAt: -Infinity,
        waiters: [],
        slotWaiters: [],
        breaker: undefined,
        shared: false,
      };
      if (circuitBreaker) {
        // With the default window, the breaker counts in the pacing window (one count a success).
        created.shared = circuitBreaker.windowMs === PACING_WINDOW_MS;
        const window = created.shared
          ? created.window
          : createOutcomeWindow(circuitBreaker.windowMs);
        created.breaker = createCircuitBreaker(origin, circuitBreaker, window, random, (now) => {
          // Released oldest first, at the rate the origin handled before it failed (or spread
          // over a second when that is unknown); with neither, there is nothing to spread.
          const rate = created.lastGoodRate || created.waiters.length;
          if (rate) created.pacer.release(now, rate);
        });
      }
      state = created;
      if (origins.size >= MAX_ORIGINS) origins.delete(origins.keys().next().value as string);
    }
    origins.set(origin, state);
    latest = state;
    return state;
  }

  function signalOf(state: OriginState, ending: Ending, now: number): Signal | undefined {
    const { status, rateLimit } = ending;
    const remaining = rateLimit?.remaining;
    // The requests still in flight will spend what is left: stop before the server says 429.
    if (remaining !== undefined && remaining <= state.inFlight) {
      return rateLimit?.resetMs === undefined ? 'limit' : 'quota';
    }
    if (status === 429) return 'limit';
    if (status === 503) {
      if (ending.waitMs !== undefined) return 'limit';
      const { successes, failures } = state.window.counts(now);
      // Overloaded: two in three attempts fail, but some still succeed now, over enough attempts to
      // tell (a few random 503s at the start are not an overload). An origin that stopped
      // succeeding is dying, not overloaded: pacing would learn a rate near zero from it.
      const serving = now - state.lastSuccessAt <= PACING_WINDOW_MS / 10;
      if (successes + failures < MIN_OVERLOAD_SAMPLE) return undefined;
      return failures >= 2 * successes && serving ? 'overload' : undefined;
    }
    return undefined;
  }

  return {
    admit(origin, now, latest) {
      const state = originState(origin);
      const admission = state.breaker ? state.breaker.admit(now) : 'send';
      if (typeof admission === 'number') return { until: admission };
      // The probe is one attempt: it goes at once, not after the slots of the calls before it.
      const { pacer } = state;
      let at: number | undefined = now;
      if (admission === 'probe') {
        if (now > latest) {
          // No time left for this call: give the probe back, for one that has it.
          state.breaker?.record(now, undefined, true);
          wakeAll(state.waiters);
          return { late: true };
        }
      } else {
        // Only a paced pacer can stop pacing (and wake the calls waiting for its slots).
        at = pacer.paced
          ? pacerChange(state, () => pacer.reserve(now, latest))
          : pacer.reserve(now, latest);
        if (at === undefined) return { late: true };
      }
      state.inFlight++;
      if (admission === 'probe') return { pass: { origin: state, probe: true }, at };
      state.send ??= { origin: state, probe: false };
      return { pass: state.send, at };
    },

    settle({ origin: state, probe }, now, ending) {
      state.inFlight--;
      const { failed } = ending;
      if (failed === false) state.lastSuccessAt = now;
      if (failed !== undefined && !state.shared) state.window.add(now, failed);
      if (state.breaker) {
        state.breaker.record(
          now,
          failed === undefined ? undefined : failed ? 'failure' : 'success',
          probe,
        );
        if (probe) wakeAll(state.waiters);
      }
      if (failed) {
        // The first failures after a healthy spell tell the rate it handled (a window that is
        // already half failures has lost the successes that measured it).
        const { successes, failures, spanMs } = state.window.counts(now);
        if (4 * failures < successes)
          state.lastGoodRate = (successes * 1000) / Math.max(spanMs, 100);
      }
      if (!settings.pacing) return;
      const signal = signalOf(state, ending, now);
      if (signal) {
        const { rateLimit } = ending;
        const waitMs = signal === 'quota' ? rateLimit?.resetMs : ending.waitMs;
        // The quota the server announces, per second over its period (or, not said, its reset).
        const quota = rateLimit?.limit
          ? (rateLimit.limit * 1000) / Math.max(rateLimit.periodMs ?? rateLimit.resetMs ?? 0, 1000)
          : 0;
        pacerChange(state, (pacer) =>
          pacer.throttle(now, state.window.counts(now), waitMs, signal, quota),
        );
      }
    },

    mayStillGo({ origin: state, probe }) {
      return probe || !state.breaker || state.breaker.state === 'closed';
    },

    observe(origin, now, ending) {
      const state = originState(origin);
      state.inFlight++;
      this.settle({ origin: state, probe: false }, now, ending);
    },

    onChange(origin, startedAt, wake, forSlot = false) {
      const state = originState(origin);
      const waiters = forSlot ? state.slotWaiters : state.waiters;
      const waiter = { startedAt, wake };
      waiters.push(waiter);
      return () => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
      };
    },

    retryIsFree(origin, now) {
      const state = origins.get(origin);
      if (!state) return false;
      const { successes, failures } = state.window.counts(now);
      return state.pacer.paced || failures < successes;
    },
  };
}
