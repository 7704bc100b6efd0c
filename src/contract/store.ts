/**
 * Where the load-control state that clients can share lives: the seam between the decisions
 * (pacer, breaker: pure, in this process) and the place their state is kept.
 *
 * Every decision is made here, at once, on the state as last known here: a store never adds a
 * round trip to a call. A remote store also makes each change atomically where it keeps the
 * state (made again on the latest state when another client changed it first), and tells the
 * clients sharing it of each other's changes.
 */

/**
 * What the clients sharing a store share of one scope: plain data, times on the store's clock.
 * Numbers may be ±Infinity (a remote store encodes them).
 */
export interface SharedScope {
  /**
   * Counts the changes kept by a remote store (which sets it): a change made on an older version
   * is made again on the latest. The memory store leaves it at 0.
   */
  readonly version: number;
  readonly pace: PaceState;
  readonly breaker: BreakerState;
}

/** A change of a scope's shared state: pure, since a remote store may make it again. */
export type ScopeChange = (state: SharedScope) => SharedScope;

export interface LoadControlStore {
  /**
   * The store's clock minus this process's (`clock.ts`): shared times are the store's, so that
   * clients on different machines agree on them. 0 in memory.
   */
  clockOffset(): number;
  /**
   * Makes `change` on `current` (the state as known here, with the version the store last
   * reported) and returns the result at once; a remote store then makes it atomically where it
   * keeps the state (again on the latest state, if `current` is not), and reports the state it
   * left there, with its version, through `watch`.
   */
  update(key: string, current: SharedScope, change: ScopeChange): SharedScope;
  /**
   * The latest state of a scope heard from the store, with no round trip (undefined: none yet).
   * A remote store that has none asks for it, and reports it through `watch`.
   */
  latest(key: string): SharedScope | undefined;
  /** Calls `listener` with the latest state of a scope, changed here or by another client. Returns its removal. */
  watch(listener: (key: string, state: SharedScope) => void): () => void;
  /**
   * Takes the probe lease of a scope for `ttlMs`: whether this client sends the one probe the
   * clients sharing the store make. A remote store answers with a promise.
   */
  lease(key: string, ttlMs: number): boolean | Promise<boolean>;
  /** Gives back a lease this client took. */
  unlease(key: string): void;
  /** How many clients share the store now, this one included (1 in memory). */
  clients(): number;
}

/** The state of a breaker that clients sharing a store share. */
export interface BreakerState {
  readonly state: 'closed' | 'open' | 'half-open';
  readonly openUntil: number;
  readonly failedProbes: number;
}

/** The state of a pacer that clients sharing a store share (see `createPacer` for each field). */
export interface PaceState {
  /** The rate (requests per second) the climb starts from; 0: unpaced. */
  readonly base: number;
  /** When the climb started. */
  readonly since: number;
  readonly slowStart: boolean;
  readonly growth: number;
  readonly cap: number;
  /** When the rate was last set from a throttle (Infinity: never). */
  readonly decidedAt: number;
  /**
   * Counts the cuts of the rate: at each, the calls waiting for slots spaced for a rate that
   * proved too high wake, oldest first, to reserve them again.
   */
  readonly cuts: number;
  /** Until when a spent quota holds every send but a probe (0: no hold). */
  readonly holdUntil: number;
  /** When the hold was last set: a long one is probed `probeEveryMs` after. */
  readonly heldAt: number;
  /** What the clients that reported since the last decision had accepted (per second), and how many reported. */
  readonly roundSum: number;
  readonly roundReports: number;
  readonly lastSignal: number;
  /** When a pace of overloads began (Infinity: none). */
  readonly overloadSince: number;
  readonly releasing: boolean;
  readonly ignoreOverloadUntil: number;
}
