import type { BreakerState } from '../contract/store';
import type { CircuitBreakerSettings, CircuitStateChange } from '../contract/types';
import { publish } from '../runtime/metrics';
import type { AttemptResult, OutcomeWindow } from './outcome-window';

export type CircuitState = CircuitStateChange['state'];

export type { CircuitBreakerSettings };

/**
 * May an attempt go now? `'send'` (closed), `'probe'` (half-open: this attempt is the one trial),
 * or the time to ask again: the end of the break, or `Infinity` while a probe is in flight.
 */
export type Admission = 'send' | 'probe' | number;

export interface CircuitBreaker {
  readonly state: CircuitState;
  /** The shared part of its state (`store.ts`). */
  readonly shared: BreakerState;
  admit(now: number): Admission;
  record(now: number, result: AttemptResult, probe: boolean): void;
  /** Opens a closed breaker: a trouble seen elsewhere (on other routes) is this scope's too. */
  trip(now: number): void;
  /** Holds the breaker open until every isolation is released (cockatiel's `isolate`). */
  isolate(now: number): void;
  /** Gives back one isolation; the last one closes the breaker. */
  release(now: number): void;
  /** Takes the state another client left (`store.ts`). */
  adopt(latest: BreakerState, now: number): void;
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
export const CLOSED: BreakerState = Object.freeze({
  state: 'closed',
  openUntil: 0,
  failedProbes: 0,
});

/**
 * Opens for a break that doubles with each failed probe (up to `maxBreakDurationMs`), drawn
 * from its upper half so that clients do not probe in step.
 */
function opened(s: BreakerState, now: number, b: Breaker): BreakerState {
  const { settings } = b;
  const ceiling = Math.min(
    settings.maxBreakDurationMs,
    settings.breakDurationMs * 2 ** Math.min(s.failedProbes, 30),
  );
  return { ...s, state: 'open', openUntil: now + ceiling * (0.5 + b.random() / 2) };
}

/** How a breaker takes part in a shared state: it changes it through the store. */
export interface BreakerSharing {
  /** Makes a change of the shared state and returns it (the memory store: here, at once). */
  change(make: (state: BreakerState) => BreakerState): BreakerState;
  /** Takes the one probe of the clients sharing the state: a remote store answers later. */
  lease(): boolean | Promise<boolean>;
  unlease(): void;
  /** The lease was answered: the calls waiting for the breaker ask again. */
  wake(): void;
  /** This client's share of the attempts of the clients sharing the state: 1 over their number. */
  share(): number;
}

/** What a breaker is made of: its scope, settings, window, clock-free randomness, sharing. */
export interface BreakerParts {
  readonly scope: { readonly origin: string; readonly route?: string };
  readonly settings: CircuitBreakerSettings;
  readonly window: OutcomeWindow;
  readonly random: () => number;
  /** Called when it closes. */
  readonly onClose: (now: number) => void;
  /** How it shares its state with other clients (a store: the memory one keeps it here). */
  readonly sharing: BreakerSharing;
}

/**
 * One breaker: the shared state as known here, and what is this client's own (a flag unset is
 * false, a time unset none yet).
 */
interface Breaker extends BreakerParts {
  /** Open while isolated, else the shared state's. */
  readonly state: CircuitState;
  shared: BreakerState;
  /** Its probe is in flight. */
  probing?: boolean;
  /** A lease answered for its next attempt. */
  leased?: boolean;
  /** A lease asked for and not answered yet. */
  asking?: boolean;
  /** Another client holds the lease: ask again then. */
  denied?: number;
  /** The isolations it holds. */
  isolated: number;
}

const change = (b: Breaker, make: (s: BreakerState) => BreakerState, now: number): void =>
  announce(b, now, () => (b.shared = b.sharing.change(make)));

/** Runs `act`; if the breaker's state is another after it, says so (a close clears the window). */
function announce(b: Breaker, now: number, act: () => unknown): void {
  const previousState = b.state;
  act();
  const { state } = b;
  if (state === previousState) return;
  if (state === 'closed') {
    b.window.clear(now);
    b.onClose(now);
  }
  const event = Object.freeze({ ...b.scope, state, previousState });
  publish('breaker', () => event);
  try {
    b.settings.onStateChange?.(event);
  } catch {
    // An observer's failure must not change what the breaker does, nor fail a request.
  }
}

const close = (s: BreakerState): BreakerState => (s.state === 'closed' ? s : CLOSED);

function trip(b: Breaker, now: number, failedProbe = false): void {
  change(
    b,
    (s) =>
      failedProbe || s.state === 'closed'
        ? opened({ ...s, failedProbes: s.failedProbes + +failedProbe }, now, b)
        : s,
    now,
  );
}

/** Another client holds the lease: this one asks again a break after `now` (returned). */
const deny = (b: Breaker, now: number): number => (b.denied = now + b.settings.breakDurationMs);

/** The one probe: this client's if the lease is (or was) given to it, else ask again later. */
function probe(b: Breaker, now: number): Admission {
  if (b.probing || b.asking) return Infinity;
  // Never denied (unset): NaN, never before.
  if (now < (b.denied as number)) return b.denied as number;
  const taken = b.leased || b.sharing.lease();
  b.leased = false;
  if (taken === true) {
    b.probing = true;
    return 'probe';
  }
  if (taken === false) return deny(b, now);
  b.asking = true;
  taken.then((yes) => {
    b.asking = false;
    b.leased = yes;
    if (!yes) deny(b, now);
    b.sharing.wake();
  });
  return Infinity;
}

export function createCircuitBreaker(parts: BreakerParts): CircuitBreaker {
  // One object: the breaker is its own state (what this client knows), with its methods.
  const b: Breaker & CircuitBreaker = {
    ...parts,
    ...{ shared: CLOSED, isolated: 0 },
    get state() {
      return b.isolated ? 'open' : b.shared.state;
    },
    admit(now) {
      if (b.isolated) return Infinity;
      if (b.shared.state === 'closed') return 'send';
      if (b.shared.state === 'open') {
        if (now < b.shared.openUntil) return b.shared.openUntil;
        change(b, (s) => (s.state === 'open' ? { ...s, state: 'half-open' } : s), now);
      }
      return probe(b, now);
    },
    record(now, result, isProbe) {
      if (isProbe) {
        b.probing = false;
        b.sharing.unlease();
        if (b.isolated) return;
        if (result === 'failure') trip(b, now, true);
        else if (result) change(b, close, now);
        return;
      }
      // An attempt with no result (cancelled) counts for nothing.
      if (result) b.window.add(now, result);
      if (b.shared.state !== 'closed' || result !== 'failure') return;
      const { successes, failures, throttles } = b.window.counts(now);
      const total = successes + failures + throttles;
      // A fleet's client judges its share of the throughput, no less than half (many-processes.md).
      const enough = b.settings.minimumThroughput * Math.max(b.sharing.share(), 0.5);
      if (total >= enough && failures >= b.settings.failureRatio * total) trip(b, now);
    },
    trip: (now) => trip(b, now),
    adopt: (latest, now) => announce(b, now, () => (b.shared = latest)),
    isolate: (now) => announce(b, now, () => b.isolated++),
    release: (now) =>
      announce(b, now, () => {
        // The last isolation ends in a closed breaker, whatever it was (cockatiel's `isolate`).
        if (b.isolated && !--b.isolated) b.shared = b.sharing.change(close);
      }),
  };
  return b;
}
