import type { AxiosInstance } from 'axios';
import { originOf } from '../http/origin';
import type { CircuitState } from '../load-control/circuit-breaker';
import { type LoadControl, whereOf } from '../load-control/load-control';
import { optionError } from '../options/options';
import type { RetryBudget } from '../retry/budget';
import { now as clockNow } from '../runtime/clock';

/** What `attachRetry` made for an instance: its load control and retry budget. */
export const attached = new WeakMap<
  object,
  { readonly control: LoadControl | undefined; readonly budget: RetryBudget | undefined }
>();

/** One scope of `loadControlOf`: an origin, or a route of it. */
export interface ScopeView {
  readonly origin: string;
  /** Set when the scope is a route's (path, ids as `:id`). */
  readonly route?: string;
  /** `undefined` when the circuit breaker is off. */
  readonly breaker: CircuitState | undefined;
  /** The paced rate in requests per second; `undefined` when unpaced. */
  readonly ratePerSecond: number | undefined;
  /** How long a spent quota still holds the scope (0: no hold). */
  readonly holdMs: number;
  /** When the hold ends, as a `Date.now()` time (`undefined`: no hold). */
  readonly holdUntil: number | undefined;
  readonly inFlight: number;
  /** Attempts it lets be in flight at once (learned, or `maxConcurrent`); `undefined`: none. */
  readonly limit: number | undefined;
  /** Calls waiting for the breaker, a pacing slot or the limit. */
  readonly waiting: number;
}

export interface LoadControlView {
  /** The share of the retry budget not yet spent (0 to 1); `undefined` when it is off. */
  readonly retryBudget: number | undefined;
  readonly scopes: readonly ScopeView[];
}

function of(instance: AxiosInstance) {
  const found = attached.get(instance);
  if (!found) throw optionError('expected an axios instance with `attachRetry` applied');
  return found;
}

/**
 * A frozen snapshot of an instance's load control, for health endpoints and dashboards: each
 * origin and route it knows, and the share of the retry budget left.
 */
export function loadControlOf(instance: AxiosInstance): LoadControlView {
  const { control, budget } = of(instance);
  const now = clockNow();
  const wall = Date.now();
  const scopes = [...(control?.scopes() ?? [])].map((scope) => {
    const holdMs = Math.max(0, scope.pacer.holdUntil - now);
    return Object.freeze({
      ...whereOf(scope),
      breaker: scope.breaker?.state,
      ratePerSecond: scope.pacer.rate(now),
      holdMs,
      holdUntil: holdMs ? wall + holdMs : undefined,
      inFlight: scope.inFlight,
      limit: scope.limit.limit < Infinity ? scope.limit.limit : undefined,
      waiting: scope.waiters.size + scope.slotWaiters.size + scope.line.size,
    });
  });
  return Object.freeze({ retryBudget: budget?.remaining(now), scopes: Object.freeze(scopes) });
}

/**
 * Holds the breaker of `origin` (a URL or `protocol//host:port`) open, cockatiel's `isolate`: its
 * calls fail fast with `ERR_CIRCUIT_OPEN`, or wait within their deadline, and nothing is sent,
 * until the function returned is called. Throws a TypeError when the breaker is off.
 */
export function isolate(instance: AxiosInstance, origin: string): () => void {
  const release = of(instance).control?.isolate(originOf(undefined, origin));
  if (!release) throw optionError('isolate needs the circuit breaker on');
  return release;
}
