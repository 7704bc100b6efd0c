import type { AxiosError, InternalAxiosRequestConfig } from 'axios';

/** Why retrying stopped; set on `error.config.retryState.stopReason` of the error a call rejects with. */
export type StopReason =
  | 'not-retryable'
  | 'retries-exhausted'
  | 'deadline'
  | 'budget-exhausted'
  | 'retry-after-too-long'
  | 'canceled'
  | 'body-not-replayable'
  | 'disabled';

/** The retry state of one call, kept on its request config as `config.retryState`. */
export interface RetryState {
  /** Retries sent so far (0 on the first attempt). */
  readonly retryCount: number;
  /** `Date.now()` when the call started: its deadline counts from here. */
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
  /** Why the call stopped retrying; set only on the error the call rejects with. */
  readonly stopReason?: StopReason;
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

/** Options that can be set both on the client and per request, under `retry`. */
export interface RequestRetryOptions {
  /**
   * Retries after the first attempt (a whole number, 0 or more).
   * @default 3
   */
  retries?: number;
  /**
   * The backoff ceiling of the first retry; it doubles each retry, up to `maxDelayMs`.
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
   * default rules. Limits (retries, deadline, budget, Retry-After) still apply; a canceled
   * request is never retried.
   */
  shouldRetry?: (error: AxiosError, state: RetryState) => boolean | undefined;
  /**
   * A `Retry-After` longer than this is not waited for: the call fails at once.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /**
   * The whole call (every attempt and every sleep) settles within this many milliseconds.
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
  onRetry?: (event: RetryEvent) => void;
}

/** Client options, for `attachRetry` and `retryInterceptor`. */
export interface RetryOptions extends RequestRetryOptions {
  /**
   * Caps retries to a share of traffic, shared by every call through this client;
   * `false` turns it off.
   * @default { ratio: 0.1, minRetriesPerSecond: 10, windowMs: 10000 }
   */
  retryBudget?: RetryBudgetOptions | false;
}

declare module 'axios' {
  interface AxiosRequestConfig {
    /** Per-request retry options, or `false` to turn retries off for this request. */
    retry?: RequestRetryOptions | false;
    /** Written by axios-safe-retry: the retry state of this call. */
    retryState?: RetryState;
  }
}
