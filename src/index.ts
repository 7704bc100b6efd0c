export { attachRetry, retryInterceptor } from './interceptor';
export { DEFAULT_IDEMPOTENCY_KEY, DEFAULT_OPTIONS, DEFAULT_RETRY_BUDGET } from './options';
export type {
  IdempotencyKeyOptions,
  RequestRetryOptions,
  RetryBudgetOptions,
  RetryEvent,
  RetryOptions,
  RetryState,
  StopReason,
} from './types';
