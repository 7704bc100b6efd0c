export { attachRetry, retryInterceptor } from './axios/interceptor';
export { isolate, type LoadControlView, loadControlOf, type ScopeView } from './axios/view';
export { ERR_CIRCUIT_OPEN, ERR_RATE_LIMITED, isRetryStop, type RetryStop } from './contract/stop';
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
} from './contract/types';
export type { BreakerState } from './load-control/circuit-breaker';
export type { PaceState } from './load-control/pacer';
export type {
  LoadControlStore,
  ScopeChange,
  SharedScope,
  StoreFailure,
  StoreHealth,
} from './load-control/store';
export {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_IDEMPOTENCY_KEY,
  DEFAULT_OPTIONS,
  DEFAULT_PACING,
  DEFAULT_RETRY_BUDGET,
} from './options/options';
