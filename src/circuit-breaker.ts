import { publish } from './metrics';
import type { AttemptResult, OutcomeWindow } from './outcome-window';
import type { CircuitBreakerSettings, CircuitStateChange } from './types';

export type CircuitState = CircuitStateChange['state'];

export type { CircuitBreakerSettings };

/**
 * May an attempt go now? `'send'` (closed), `'probe'` (half-open: this attempt is the one trial),
 * or the time to ask again: the end of the break, or `Infinity` while a probe is in flight.
 */
export type Admission = 'send' | 'probe' | number;

export interface CircuitBreaker {
  readonly state: CircuitState;
  admit(now: number): Admission;
  record(now: number, result: AttemptResult, probe: boolean): void;
  /** Opens a closed breaker: a trouble seen elsewhere (on other routes) is this scope's too. */
  trip(now: number): void;
  /** Holds the breaker open until every isolation is released (cockatiel's `isolate`). */
  isolate(now: number): void;
  /** Gives back one isolation; the last one closes the breaker. */
  release(now: number): void;
}

/**
 * The breaker of one scope (pure; the clock and `random` are given). Closed, it opens when the
 * window holds at least `minimumThroughput` attempts of which a share ≥ `failureRatio` failed.
 * A throttled attempt (a 429) is never a failure: the origin answered, it is alive; it counts
 * as an attempt that did not fail, and a throttled probe closes the breaker (pacing takes over).
 * Open, nothing is sent until the break is over; then, half-open, one attempt at a time goes as
 * the probe: a success closes it, a failure opens it again for a break twice as long (up to
 * `maxBreakDurationMs`), drawn from its upper half so that clients do not probe in step.
 */
export function createCircuitBreaker(
  scope: { readonly origin: string; readonly route?: string },
  settings: CircuitBreakerSettings,
  window: OutcomeWindow,
  random: () => number,
  onClose: (now: number) => void,
): CircuitBreaker {
  let state: CircuitState = 'closed';
  let openUntil = 0;
  let failedProbes = 0;
  let probing = false;
  let isolated = 0;

  function moveTo(next: CircuitState, now: number): void {
    const previousState = state;
    state = next;
    if (next === 'closed') {
      failedProbes = 0;
      window.clear(now);
      onClose(now);
    }
    const event = Object.freeze({ ...scope, state: next, previousState });
    publish('breaker', () => event);
    try {
      settings.onStateChange?.(event);
    } catch {
      // An observer's failure must not change what the breaker does, nor fail a request.
    }
  }

  function open(now: number): void {
    const exponent = Math.min(failedProbes, 30);
    const ceiling = Math.min(settings.maxBreakDurationMs, settings.breakDurationMs * 2 ** exponent);
    openUntil = now + ceiling * (0.5 + random() / 2);
    moveTo('open', now);
  }

  return {
    get state() {
      return state;
    },
    admit(now) {
      if (state === 'closed') return 'send';
      if (state === 'open') {
        if (now < openUntil) return openUntil;
        moveTo('half-open', now);
      }
      if (probing) return Infinity;
      probing = true;
      return 'probe';
    },
    record(now, result, probe) {
      if (probe) {
        probing = false;
        if (isolated) return;
        if (result === 'failure') {
          failedProbes++;
          open(now);
        } else if (result) moveTo('closed', now);
        return;
      }
      if (result === undefined) return;
      window.add(now, result);
      if (state !== 'closed' || result !== 'failure') return;
      const { successes, failures, throttled } = window.counts(now);
      const total = successes + failures + throttled;
      if (total >= settings.minimumThroughput && failures >= settings.failureRatio * total) {
        open(now);
      }
    },
    trip(now) {
      if (state === 'closed') open(now);
    },
    isolate(now) {
      openUntil = Infinity;
      if (!isolated++ && state !== 'open') moveTo('open', now);
    },
    release(now) {
      if (isolated && !--isolated) moveTo('closed', now);
    },
  };
}
