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
 *   no later than now (with `CLOCK_ERROR_MS` of room: the other clients' clocks);
 * - a rate lies in [`minRatePerSecond`, `MAX_SHARED_RATE`], its growth in [0, 10] per second,
 *   its cap at least 1;
 * - a version is a whole number below `VERSIONS` (version.ts: counted round, it never ends);
 * - the clients' count lies in [1, `MAX_SHARED_CLIENTS`], the clock offset within a day.
 * Bounded once, here, for any store: a custom one is covered as the Redis one is.
 */

/** The highest rate (requests per second) a stored state may set. */
export const MAX_SHARED_RATE = 100_000;
export const MAX_SHARED_CLIENTS = 10_000;
/** How far another client's "now" may be ahead of ours (clock offsets are measured to a few ms). */
export const CLOCK_ERROR_MS = 1000;
/** The local rules a stored state is held to. */
export interface StoreBounds {
  readonly maxBreakDurationMs: number;
  readonly minRatePerSecond: number;
  readonly healthyAfterMs: number;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const clamp = (value: number, low: number, high: number): number =>
  Math.min(Math.max(value, low), high);
/** `fields[key]` in [low, high] when it is a number (±Infinity included), else `fallback`. */
const bound = (fields: Fields, key: string, low: number, high: number, fallback = low): number => {
  const value = fields[key];
  return typeof value === 'number' && !Number.isNaN(value) ? clamp(value, low, high) : fallback;
};

function pace(p: Fields, now: number, b: StoreBounds): PaceState {
  const day = now + MAX_SERVER_WAIT_MS;
  // Another client's past times are on its reading of the store's clock: a second of error is
  // allowed (a decision a few ms ahead of ours is the same decision: its time names its round).
  const soon = now + CLOCK_ERROR_MS;
  const base = bound(p, 'base', 0, MAX_SHARED_RATE);
  const roundReports = bound(p, 'roundReports', 0, 1e6);
  // Never (Infinity) is a time the local rules use; any other is a past one.
  const pastOrNever = (key: string, never: boolean) =>
    bound(
      p,
      key,
      -Infinity,
      never && p[key] === Infinity ? Infinity : soon,
      never ? Infinity : now,
    );
  return {
    base: base && Math.max(base, b.minRatePerSecond),
    since: bound(p, 'since', -Infinity, day, now),
    slowStart: p.slowStart !== false,
    growth: bound(p, 'growth', 0, 10),
    cap: bound(p, 'cap', 1, Infinity),
    // A paced scope was decided on in the past: a decision "to come" makes every throttle old news.
    decidedAt: pastOrNever('decidedAt', !base),
    cuts: bound(p, 'cuts', 0, Number.MAX_SAFE_INTEGER),
    holdUntil: bound(p, 'holdUntil', -Infinity, day, 0),
    // A hold said to be set in the future is due a probe now.
    heldAt: bound(p, 'heldAt', -Infinity, (p.heldAt as number) > soon ? -Infinity : soon),
    roundSum: bound(p, 'roundSum', 0, MAX_SHARED_RATE * roundReports),
    roundReports,
    lastSignal: bound(p, 'lastSignal', -Infinity, soon),
    overloadSince: pastOrNever('overloadSince', true),
    releasing: p.releasing === true,
    ignoreOverloadUntil: bound(p, 'ignoreOverloadUntil', -Infinity, now + b.healthyAfterMs),
  };
}

function breaker(s: Fields, now: number, b: StoreBounds): BreakerState {
  const { state } = s;
  return state === 'open' || state === 'half-open'
    ? {
        state,
        openUntil: bound(s, 'openUntil', -Infinity, now + b.maxBreakDurationMs, 0),
        failedProbes: bound(s, 'failedProbes', 0, 1e6),
      }
    : CLOSED;
}

/** A state a store returned, bounded by the local rules at `now` (the store's clock); `undefined`: unreadable. */
export function boundedScope(value: unknown, now: number, b: StoreBounds): SharedScope | undefined {
  if (!isObject(value) || !isVersion(value.version)) return undefined;
  const { version, pace: p, breaker: s } = value;
  return isObject(p) && isObject(s)
    ? { version, pace: pace(p, now, b), breaker: breaker(s, now, b) }
    : undefined;
}

/**
 * `store`, with every state it reports bounded (`boundedScope`), and its counts too: the other
 * methods are the store's own (the guard inherits them).
 */
export function guardStore(store: LoadControlStore, b: StoreBounds): LoadControlStore {
  const offset = (): number => {
    const value = store.clockOffset();
    return Math.abs(value) <= MAX_SERVER_WAIT_MS ? value : 0;
  };
  const bounded = (state: unknown) => boundedScope(state, clockNow() + offset(), b);
  const guarded: Partial<LoadControlStore> = {
    clockOffset: offset,
    update: (key, current, change) =>
      bounded(store.update(key, current, change)) ?? change(current),
    latest: (key) => bounded(store.latest(key)),
    watch: (listener) =>
      store.watch((key, state) => {
        const safe = bounded(state);
        if (safe) listener(key, safe);
      }),
    clients: () => clamp(Math.floor(store.clients()), 1, MAX_SHARED_CLIENTS) || 1,
  };
  return Object.assign(Object.create(store) as LoadControlStore, guarded);
}
