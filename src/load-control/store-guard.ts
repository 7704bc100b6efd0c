import { MAX_SERVER_WAIT_MS } from '../http/retry-after';
import { now as clockNow } from '../runtime/clock';
import { type BreakerState, CLOSED } from './circuit-breaker';
import type { PaceState } from './pacer';
import type { LoadControlStore, SharedScope } from './store';
import { isVersion } from './version';

/**
 * What a store reports is input, not truth: a store is shared with whatever else holds its
 * prefix (another app, an older worker, a bug, an attacker inside the network). Every state it
 * returns (`latest`, `watch`, `update`) is bounded here, as a server's headers are, before load
 * control acts on it; a state that cannot be read is ignored, a number out of bounds clamped:
 * - a break ends within `maxBreakDurationMs`, a hold within a day, and a hold set in the future
 *   is probed at once (`heldAt`); times that are past by nature (a signal, a decision) are
 *   no later than now;
 * - a rate lies in [`minRatePerSecond`, `MAX_SHARED_RATE`], its growth in [0, 10] per second,
 *   its cap at least 1;
 * - a version is a whole number below `VERSIONS` (version.ts: counted round, it never ends);
 * - the clients' count lies in [1, `MAX_SHARED_CLIENTS`], the clock offset within a day.
 * Bounded once, here, for any store: a custom one is covered as the Redis one is.
 */

/** The highest rate (requests per second) a stored state may set. */
export const MAX_SHARED_RATE = 100_000;
export const MAX_SHARED_CLIENTS = 10_000;
/** The local rules a stored state is held to. */
export interface StoreBounds {
  readonly maxBreakDurationMs: number;
  readonly minRatePerSecond: number;
  readonly healthyAfterMs: number;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A number (±Infinity included), else `fallback`. */
const num = (value: unknown, fallback: number): number =>
  typeof value === 'number' && !Number.isNaN(value) ? value : fallback;
const clamp = (value: number, low: number, high: number): number =>
  Math.min(Math.max(value, low), high);
const count = (value: unknown, max: number): number =>
  clamp(Math.floor(num(value, 0)), 0, max) || 0;

function pace(p: Fields, now: number, b: StoreBounds): PaceState {
  const base = num(p.base, 0);
  const decidedAt = num(p.decidedAt, Infinity);
  const heldAt = num(p.heldAt, -Infinity);
  const overloadSince = num(p.overloadSince, Infinity);
  const roundReports = count(p.roundReports, 1e6);
  return {
    base: base > 0 ? clamp(base, b.minRatePerSecond, MAX_SHARED_RATE) : 0,
    since: Math.min(num(p.since, now), now + MAX_SERVER_WAIT_MS),
    slowStart: p.slowStart !== false,
    growth: clamp(num(p.growth, 0), 0, 10),
    cap: Math.max(num(p.cap, 1), 1),
    // A paced scope was decided on in the past: a decision "to come" would make every throttle old news.
    decidedAt: base > 0 && !(decidedAt <= now) ? now : decidedAt,
    cuts: count(p.cuts, Number.MAX_SAFE_INTEGER),
    holdUntil: Math.min(num(p.holdUntil, 0), now + MAX_SERVER_WAIT_MS),
    // A hold said to be set in the future (beyond a clock's error) is due a probe now.
    heldAt: heldAt > now + 1000 ? -Infinity : Math.min(heldAt, now),
    roundSum: roundReports ? clamp(num(p.roundSum, 0), 0, MAX_SHARED_RATE * roundReports) : 0,
    roundReports,
    lastSignal: Math.min(num(p.lastSignal, -Infinity), now),
    overloadSince: overloadSince === Infinity ? overloadSince : Math.min(overloadSince, now),
    releasing: p.releasing === true,
    ignoreOverloadUntil: Math.min(num(p.ignoreOverloadUntil, -Infinity), now + b.healthyAfterMs),
  };
}

function breaker(s: Fields, now: number, b: StoreBounds): BreakerState {
  const { state } = s;
  if (state !== 'open' && state !== 'half-open') return CLOSED;
  return {
    state,
    openUntil: Math.min(num(s.openUntil, 0), now + b.maxBreakDurationMs),
    failedProbes: count(s.failedProbes, 1e6),
  };
}

/** A state a store returned, bounded by the local rules at `now` (the store's clock); `undefined`: unreadable. */
export function boundedScope(value: unknown, now: number, b: StoreBounds): SharedScope | undefined {
  if (!isObject(value) || !isObject(value.pace) || !isObject(value.breaker)) return undefined;
  const { version } = value;
  if (!isVersion(version)) return undefined;
  return {
    version,
    pace: pace(value.pace, now, b),
    breaker: breaker(value.breaker, now, b),
  };
}

/** `store`, with every state it reports bounded (`boundedScope`), and its counts too. */
export function guardStore(store: LoadControlStore, b: StoreBounds): LoadControlStore {
  const offset = (): number => {
    const value = store.clockOffset();
    return Math.abs(value) <= MAX_SERVER_WAIT_MS ? value : 0;
  };
  const bounded = (state: unknown) => boundedScope(state, clockNow() + offset(), b);
  return {
    clockOffset: offset,
    update: (key, current, change) =>
      bounded(store.update(key, current, change)) ?? change(current),
    latest: (key) => bounded(store.latest(key)),
    watch: (listener) =>
      store.watch((key, state) => {
        const safe = bounded(state);
        if (safe) listener(key, safe);
      }),
    lease: (key, ttlMs) => store.lease(key, ttlMs),
    unlease: (key) => store.unlease(key),
    clients: () => clamp(Math.floor(store.clients()), 1, MAX_SHARED_CLIENTS) || 1,
    health: store.health?.bind(store),
  };
}
