import type { AxiosInstance } from 'axios';
import { originOfURL } from '../http/origin';
import type { CircuitState } from '../load-control/circuit-breaker';
import { type LoadControl, whereOf } from '../load-control/load-control';
import { optionError } from '../options/rules';
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
  /** When the hold ends, on the clock of `retryState.startedAt` (`undefined`: no hold). */
  readonly holdUntil: number | undefined;
  readonly inFlight: number;
  /** Calls waiting for the breaker or for a pacing slot. */
  readonly waiting: number;
}

export interface LoadControlView {
  /** The share of the retry budget not yet spent (0 to 1); `undefined` when it is off. */
  readonly retryBudget: number | undefined;
  readonly scopes: readonly ScopeView[];
}

function of(instance: AxiosInstance) {
  const found = attached.get(instance);
  if (!found) throw optionError('no `attachRetry` on this instance');
  return found;
}

/**
 * A frozen snapshot of an instance's load control, for health endpoints and dashboards: each
 * origin and route it knows, and the share of the retry budget left.
 */
export function loadControlOf(instance: AxiosInstance): LoadControlView {
  const { control, budget } = of(instance);
  const local = clockNow();
  // The scopes' times are on the store's clock.
  const now = control?.now() ?? local;
  const scopes = Array.from(control?.scopes() ?? [], (scope) => {
    const holdMs = Math.max(0, scope.pacer.shared.holdUntil - now);
    return Object.freeze({
      ...whereOf(scope),
      breaker: scope.breaker?.state,
      ratePerSecond: scope.pacer.rate(now),
      holdMs,
      holdUntil: holdMs ? local + holdMs : undefined,
      inFlight: scope.inFlight,
      waiting: scope.waiters.size + scope.slotWaiters.size,
    });
  });
  return Object.freeze({ retryBudget: budget?.remaining(local), scopes: Object.freeze(scopes) });
}

/**
 * Holds the breaker of `origin` (a URL or `protocol//host:port`) open, cockatiel's `isolate`,
 * until the function returned is called: nothing is sent, and its calls wait and fail with
 * `ERR_CIRCUIT_OPEN` as at any open breaker. Throws a TypeError when the breaker is off.
 */
export function isolate(instance: AxiosInstance, origin: string): () => void {
  const release = of(instance).control?.isolate(originOfURL(origin));
  if (!release) throw optionError('isolate: circuitBreaker is off');
  return release;
}
