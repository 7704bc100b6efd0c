import type { AxiosError, InternalAxiosRequestConfig } from 'axios';
import type { LoadControlStore } from './store';

/** Why retrying stopped; set on `error.config.retryState.stopReason` of the error a call rejects with. */
export type StopReason =
  | 'not-retryable'
  | 'retries-exhausted'
  | 'deadline'
  | 'budget-exhausted'
  | 'retry-after-too-long'
  | 'canceled'
  | 'body-not-replayable'
  | 'disabled'
  | 'circuit-open'
  | 'upstream-gave-up';

/** The retry state of one call, kept on its request config as `config.retryState`. */
export interface RetryState {
  /** Retries sent so far (0 on the first attempt). */
  readonly retryCount: number;
  /**
   * When the call started, in milliseconds, on a monotonic clock that reads like `Date.now()`
   * but does not follow steps of the wall clock: its deadline counts from here.
   */
  readonly startedAt: number;
  /** The delay slept before each retry, in milliseconds, in order. */
  readonly delays: readonly number[];
  /** The idempotency key this call carries on every attempt, if any. */
  readonly idempotencyKey?: string;
  /**
   * `true` on the attempt the deadline allowed as the last one: it is not retried, unless its
   * connection was refused (it never reached the server).
   */
  readonly finalAttempt?: boolean;
  /**
   * Milliseconds the call's attempts waited at the gate of their origin: for its breaker to let
   * them through, or for a slot of its pacing. Absent if they never waited.
   */
  readonly waitedMs?: number;
  /**
   * Attempts that never reached the server (connection refused, host not found). With a
   * deadline they do not use up `retries`: the deadline bounds them.
   */
  readonly refusedCount?: number;
  /**
   * Attempts throttled (a `429`) or overloaded (a `503`) while load control paced their origin
   * or route: up to `retries` of them do not use up `retries` (pacing bounds them).
   */
  readonly throttledCount?: number;
  /**
   * `true` once an attempt of a method not in `methods` timed out, or lost its connection after
   * it was sent: the server may have acted on it (a payment may have been taken).
   */
  readonly maybePerformed?: true;
  /** Why the call stopped retrying; set only on the error the call rejects with. */
  readonly stopReason?: StopReason;
  /**
   * When the gate stopped the call (`ERR_CIRCUIT_OPEN`, `ERR_RATE_LIMITED`): in how many
   * milliseconds its origin is expected to accept again, so that a job loop can wait for it.
   */
  readonly retryAfterMs?: number;
}

/** What `onRetry` receives, before each sleep. Frozen. */
export interface RetryEvent {
  /** The retry about to be sent: 1 for the first retry. */
  readonly retryCount: number;
  /** How long the call sleeps before it, in milliseconds. */
  readonly delayMs: number;
  /** The failure being retried. */
  readonly error: AxiosError;
  /** The config of the attempt that failed. */
  readonly config: InternalAxiosRequestConfig;
}

/** What `retryDelay` receives, for a retry with no server-given wait. */
export interface RetryDelayEvent {
  /** The retry about to be sent: 1 for the first retry. */
  readonly retryCount: number;
  /** The failure being retried. */
  readonly error: AxiosError;
  /** The full-jitter delay this package would sleep, in milliseconds. */
  readonly delayMs: number;
}

export interface IdempotencyKeyOptions {
  /**
   * The request header that carries the key.
   * @default 'Idempotency-Key'
   */
  header?: string;
  /**
   * Methods that get a key on their first attempt (a key makes them retryable).
   * @default ['POST', 'PATCH']
   */
  methods?: readonly string[];
  /**
   * Makes a new key for each call.
   * @default uuid v4
   */
  generate?: () => string;
}

export interface RetryBudgetOptions {
  /**
   * Retries allowed as a share of requests in the window, from 0 to 1.
   * @default 0.1
   */
  ratio?: number;
  /**
   * Retries per second allowed on top of the ratio, so low traffic can still retry.
   * @default 10
   */
  minRetriesPerSecond?: number;
  /**
   * The sliding window over which requests and retries are counted, in milliseconds.
   * @default 10000
   */
  windowMs?: number;
}

/** What `onStateChange` receives when the breaker of an origin changes state. Frozen. */
export interface CircuitStateChange {
  /** `protocol//host:port` (the default port left out). */
  readonly origin: string;
  /** The route (path, ids as `:id`) when the breaker is the route's, not the whole origin's. */
  readonly route?: string;
  readonly state: 'closed' | 'open' | 'half-open';
  readonly previousState: 'closed' | 'open' | 'half-open';
}

export interface CircuitBreakerOptions {
  /**
   * The share of failed attempts in the window (0 < r ≤ 1) at which the breaker opens.
   * @default 1 (every attempt failed: an overloaded origin that still serves some is paced, not cut off)
   */
  failureRatio?: number;
  /**
   * Attempts the window must hold before the breaker may open (a whole number ≥ 1).
   * @default 10
   */
  minimumThroughput?: number;
  /**
   * The sliding window over which attempts are counted, in milliseconds.
   * @default 1000
   */
  windowMs?: number;
  /**
   * How long the breaker stays open before it lets one probe through, in milliseconds.
   * @default 500
   */
  breakDurationMs?: number;
  /**
   * The longest break: it doubles (with jitter) after each failed probe, up to this.
   * @default 2000
   */
  maxBreakDurationMs?: number;
  /** Called when the breaker of an origin changes state. What it throws is ignored. */
  onStateChange?: (event: CircuitStateChange) => void;
}

export interface PacingOptions {
  /**
   * After a throttle signal the send rate is set to what the origin accepted; it then climbs by
   * this share of itself per second (and, when no quota was announced, by one request a second
   * per second), until the next signal.
   * @default 0.05
   */
  growthPerSecond?: number;
  /**
   * An origin with no throttle signal for this long is no longer paced, in milliseconds.
   * @default 5000
   */
  healthyAfterMs?: number;
  /**
   * The slowest pace, in requests per second.
   * @default 0.5
   */
  minRatePerSecond?: number;
}

/** Options that can be set both on the client and per request, under `retry`. */
export interface RequestRetryOptions {
  /**
   * Retries after the first attempt (a whole number, 0 or more).
   * @default 3
   */
  retries?: number;
  /**
   * The backoff ceiling of the first retry; it doubles each retry, up to `maxDelayMs`. It is also
   * the spread added to a `Retry-After` wait, on every retry.
   * @default 100
   */
  baseDelayMs?: number;
  /**
   * The largest backoff ceiling, in milliseconds.
   * @default 20000
   */
  maxDelayMs?: number;
  /**
   * The source of jitter: returns a number in [0, 1). Inject a seeded one in tests.
   * @default Math.random
   */
  random?: () => number;
  /**
   * Response statuses that are retried.
   * @default [408, 429, 500, 502, 503, 504]
   */
  statusCodes?: readonly number[];
  /**
   * Methods retried without an idempotency key.
   * @default ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']
   */
  methods?: readonly string[];
  /**
   * Decides whether a failure is repeatable: `true` or `false` decides, `undefined` keeps the
   * default rules; a promise of these is awaited, within the deadline. Any other answer rejects
   * the call with a TypeError, a throw or a rejection with that error. Limits (retries,
   * deadline, budget, Retry-After) still apply; a canceled request is never retried.
   */
  shouldRetry?: (
    error: AxiosError,
    state: RetryState,
  ) => boolean | undefined | PromiseLike<boolean | undefined>;
  /**
   * A `Retry-After` longer than this is not waited for: the call fails at once.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /**
   * The whole call (every attempt and every sleep) settles within this many milliseconds;
   * `Infinity` turns a client's deadline off for a request.
   * @default undefined (no deadline)
   */
  deadlineMs?: number;
  /**
   * Stamp an idempotency key on the first attempt of writes, and retry them with the same key.
   * @default false
   */
  idempotencyKey?: boolean | IdempotencyKeyOptions;
  /**
   * Called before each sleep. A promise it returns is waited for: the retry is sent once the
   * delay has passed and the promise has settled. If it throws or its promise rejects, the call
   * rejects with that error at once and sends nothing more.
   */
  onRetry?: (event: RetryEvent) => void | PromiseLike<void>;
  /**
   * The delay before a retry, in milliseconds (a finite number ≥ 0), given the full-jitter one
   * this package drew. Not asked when the server set the wait (`Retry-After`, a rate-limit
   * reset): the server's wait wins. The deadline still bounds it.
   */
  retryDelay?: (event: RetryDelayEvent) => number;
  /**
   * The `Retry-Attempt` and `Request-Deadline-Ms` request headers, and following a server layer.
   * By default (`undefined`): outside a browser (in Node, Bun, Deno), every attempt carries the
   * headers, so that the top of a chain (a job, a gateway) sends its deadline down; in a browser,
   * only with `true` (they are not CORS-safelisted: a cross-origin request would need a
   * preflight). Under `axios-safe-retry/server`'s `retryLayer`, the call also follows the inbound
   * request (its deadline, its caller going), in a browser or not. `false`: neither, ever (for an
   * API that rejects unknown headers, or work that outlives the request).
   * @default undefined
   */
  propagate?: boolean;
}

/** Client options, for `attachRetry` and `retryInterceptor`. */
export interface RetryOptions extends RequestRetryOptions {
  /**
   * Caps retries to a share of traffic, shared by every call through this client;
   * `false` turns it off.
   * @default { ratio: 0.1, minRetriesPerSecond: 10, windowMs: 10000 }
   */
  retryBudget?: RetryBudgetOptions | false;
  /**
   * One circuit breaker per origin, shared by every call through this client; `false` turns it off.
   * @default DEFAULT_CIRCUIT_BREAKER
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /**
   * Per-origin pacing after throttle signals (429, a spent quota, 503 while most attempts fail);
   * `false` turns it off.
   * @default DEFAULT_PACING
   */
  pacing?: PacingOptions | false;
  /**
   * Where the pacers' and breakers' state lives: in this client (the default), or shared by
   * every client on one store, such as `createRedisStore` from `axios-safe-retry/redis`.
   * @default memoryStore()
   */
  store?: LoadControlStore;
}

/** `IdempotencyKeyOptions` with every default filled in (`methods` in upper case). */
export type ResolvedIdempotencyKey = Readonly<Required<IdempotencyKeyOptions>>;

/** `RetryBudgetOptions` with every default filled in. */
export type RetryBudgetSettings = Readonly<Required<RetryBudgetOptions>>;

/** `CircuitBreakerOptions` with every default filled in (`onStateChange` has none). */
export type CircuitBreakerSettings = Readonly<
  Required<Omit<CircuitBreakerOptions, 'onStateChange'>> &
    Pick<CircuitBreakerOptions, 'onStateChange'>
>;

/** `PacingOptions` with every default filled in. */
export type PacingSettings = Readonly<Required<PacingOptions>>;

declare module 'axios' {
  interface AxiosRequestConfig {
    /** Per-request retry options, or `false` to turn retries off for this request. */
    retry?: RequestRetryOptions | false;
    /** Written by axios-safe-retry: the retry state of this call. */
    retryState?: RetryState;
  }
}
