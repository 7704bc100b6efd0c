export type { BreakerState } from './circuit-breaker';
export { attachRetry, retryInterceptor } from './interceptor';
export {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_IDEMPOTENCY_KEY,
  DEFAULT_OPTIONS,
  DEFAULT_PACING,
  DEFAULT_RETRY_BUDGET,
} from './options';
export type { PaceState } from './pacer';
export { ERR_CIRCUIT_OPEN, ERR_RATE_LIMITED, isRetryStop, type RetryStop } from './stop';
export type { LoadControlStore, ScopeChange, SharedScope } from './store';
export type {
  CircuitBreakerOptions,
  CircuitBreakerSettings,
  CircuitStateChange,
  IdempotencyKeyOptions,
  PacingOptions,
  PacingSettings,
  RequestRetryOptions,
  ResolvedIdempotencyKey,
  RetryBudgetOptions,
  RetryBudgetSettings,
  RetryDelayEvent,
  RetryEvent,
  RetryOptions,
  RetryState,
  StopReason,
} from './types';
export { isolate, type LoadControlView, loadControlOf, type ScopeView } from './view';
