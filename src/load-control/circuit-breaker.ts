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
  /** Held open by `isolate` (a scope cache keeps it). */
  readonly isolated: boolean;
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
function opened(
  s: BreakerState,
  now: number,
  settings: CircuitBreakerSettings,
  random: () => number,
): BreakerState {
  const exponent = Math.min(s.failedProbes, 30);
  const ceiling = Math.min(settings.maxBreakDurationMs, settings.breakDurationMs * 2 ** exponent);
  return { ...s, state: 'open', openUntil: now + ceiling * (0.5 + random() / 2) };
}

/** The fewest attempts a client of a fleet judges its share of `minimumThroughput` on. */
export const SHARE_FLOOR = 2;

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

/** One breaker: the shared state as known here, and what is this client's own. */
interface Breaker {
  readonly scope: { readonly origin: string; readonly route?: string };
  readonly settings: CircuitBreakerSettings;
  readonly window: OutcomeWindow;
  readonly random: () => number;
  readonly onClose: (now: number) => void;
  readonly sharing: BreakerSharing | undefined;
  shared: BreakerState;
  /** Its probe is in flight. */
  probing: boolean;
  /** A lease answered for its next attempt. */
  leased: boolean;
  /** A lease asked for and not answered yet. */
  asking: boolean;
  /** Another client holds the lease: ask again then. */
  deniedUntil: number;
  /** When the lease was first refused since the shared state last changed (Infinity: not refused). */
  refusedAt: number;
  /** The isolations it holds. */
  isolated: number;
}

const stateOf = (b: Breaker): CircuitState => (b.isolated ? 'open' : b.shared.state);

function change(b: Breaker, make: (s: BreakerState) => BreakerState, now: number): void {
  const previousState = stateOf(b);
  set(b, b.sharing ? b.sharing.change(make) : make(b.shared));
  announce(b, previousState, now);
}

/** A new shared state: a refused lease is asked for again as if for the first time. */
function set(b: Breaker, shared: BreakerState): void {
  if (shared.state !== b.shared.state || shared.openUntil !== b.shared.openUntil) {
    b.refusedAt = Infinity;
  }
  b.shared = shared;
}

/**
 * The lease was refused at `now`: ask again a lease time later. Refused still a lease time after
 * the first refusal, the state unchanged (its holder's probe would have changed it), the lease
 * has outlived its TTL (none was set, or a longer one): returns true, this client probes anyway.
 */
function refused(b: Breaker, now: number): boolean {
  const { breakDurationMs } = b.settings;
  if (now >= b.refusedAt + breakDurationMs) return true;
  b.refusedAt = Math.min(b.refusedAt, now);
  b.deniedUntil = now + breakDurationMs;
  return false;
}

function announce(b: Breaker, previousState: CircuitState, now: number): void {
  const state = stateOf(b);
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
        ? opened({ ...s, failedProbes: s.failedProbes + +failedProbe }, now, b.settings, b.random)
        : s,
    now,
  );
}

/** The one probe: this client's if the lease is (or was) given to it, else ask again later. */
function probe(b: Breaker, now: number): Admission {
  if (b.probing || b.asking) return Infinity;
  if (now < b.deniedUntil) return b.deniedUntil;
  const taken = b.leased || (b.sharing ? b.sharing.lease() : true);
  b.leased = false;
  if (taken === true || (taken === false && refused(b, now))) {
    b.probing = true;
    return 'probe';
  }
  if (taken === false) return b.deniedUntil;
  b.asking = true;
  taken.then((yes) => {
    b.asking = false;
    b.leased = yes || refused(b, now);
    b.sharing?.wake();
  });
  return Infinity;
}

function record(b: Breaker, now: number, result: AttemptResult, isProbe: boolean): void {
  if (isProbe) {
    b.probing = false;
    b.sharing?.unlease();
    if (b.isolated) return;
    if (result === 'failure') trip(b, now, true);
    else if (result) change(b, close, now);
    return;
  }
  if (result === undefined) return;
  b.window.add(now, result);
  if (b.shared.state !== 'closed' || result !== 'failure') return;
  const { successes, failures, throttled } = b.window.counts(now);
  const total = successes + failures + throttled;
  const { minimumThroughput, failureRatio } = b.settings;
  // A client of a fleet sees its share of the attempts: it judges its share of the throughput,
  // but never fewer than SHARE_FLOOR attempts (a count of clients inflated in the store would
  // have one failure open it).
  const enough = Math.max(
    Math.min(minimumThroughput, SHARE_FLOOR),
    Math.ceil(minimumThroughput * (b.sharing?.share() ?? 1)),
  );
  if (total >= enough && failures >= failureRatio * total) trip(b, now);
}

export function createCircuitBreaker(
  scope: { readonly origin: string; readonly route?: string },
  settings: CircuitBreakerSettings,
  window: OutcomeWindow,
  random: () => number,
  onClose: (now: number) => void,
  sharing?: BreakerSharing,
): CircuitBreaker {
  const b: Breaker = {
    ...{ scope, settings, window, random, onClose, sharing, shared: CLOSED },
    ...{ probing: false, leased: false, asking: false, deniedUntil: 0, isolated: 0 },
    refusedAt: Infinity,
  };
  return {
    get state() {
      return stateOf(b);
    },
    get isolated() {
      return b.isolated > 0;
    },
    get shared() {
      return b.shared;
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
    record: (now, result, isProbe) => record(b, now, result, isProbe),
    trip: (now) => trip(b, now),
    adopt(latest, now) {
      const previousState = stateOf(b);
      set(b, latest);
      announce(b, previousState, now);
    },
    isolate(now) {
      const previousState = stateOf(b);
      b.isolated++;
      announce(b, previousState, now);
    },
    release(now) {
      if (!b.isolated || --b.isolated) return;
      // The isolation ends in a closed breaker, whatever it was before (cockatiel's `isolate`).
      set(b, sharing ? sharing.change(close) : CLOSED);
      announce(b, 'open', now);
    },
  };
}

/** The state of a breaker that clients sharing a store share. */
export interface BreakerState {
  readonly state: CircuitState;
  readonly openUntil: number;
  readonly failedProbes: number;
}
