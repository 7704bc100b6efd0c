// Uses the public API the way the README does: every line here must compile.
import axios, { type AxiosError, isAxiosError } from 'axios';
import {
  attachRetry,
  type CircuitBreakerOptions,
  type CircuitStateChange,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_PACING,
  ERR_CIRCUIT_OPEN,
  ERR_RATE_LIMITED,
  isRetryStop,
  type PacingOptions,
  type RequestRetryOptions,
  type RetryDelayEvent,
  type RetryEvent,
  type RetryOptions,
  type RetryState,
  retryInterceptor,
  type StopReason,
} from 'axios-safe-retry';

const client = axios.create({ baseURL: 'https://api.example.com' });

const everyOption: RetryOptions = {
  retries: 3,
  baseDelayMs: 100,
  maxDelayMs: 20_000,
  random: Math.random,
  statusCodes: [408, 429, 500, 502, 503, 504],
  methods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'],
  shouldRetry: (error: AxiosError, state: RetryState) =>
    error.response?.status === 409 && state.retryCount < 2 ? true : undefined,
  maxRetryAfterMs: 60_000,
  deadlineMs: 5_000,
  idempotencyKey: { header: 'Idempotency-Key', methods: ['POST', 'PATCH'], generate: () => 'k' },
  retryBudget: { ratio: 0.1, minRetriesPerSecond: 10, windowMs: 10_000 },
  circuitBreaker: {
    failureRatio: 1,
    minimumThroughput: 10,
    windowMs: 1000,
    breakDurationMs: 500,
    maxBreakDurationMs: 2000,
    onStateChange: (event: CircuitStateChange) => {
      const { origin, state, previousState } = event;
      console.log(origin, state, previousState);
    },
  },
  pacing: { growthPerSecond: 0.05, healthyAfterMs: 5000, minRatePerSecond: 0.5 },
  onRetry: (event: RetryEvent) => {
    const retryCount: number = event.retryCount;
    const delayMs: number = event.delayMs;
    const url: string | undefined = event.config.url;
    const status: number | undefined = event.error.response?.status;
    console.log(retryCount, delayMs, url, status);
  },
};

const detach: () => void = attachRetry(client, everyOption);
detach();
attachRetry(client);
attachRetry(client, { retryBudget: false, idempotencyKey: true });
attachRetry(client, { circuitBreaker: false, pacing: false });
const breakerDefaults: CircuitBreakerOptions = DEFAULT_CIRCUIT_BREAKER;
const pacingDefaults: PacingOptions = DEFAULT_PACING;
console.log(breakerDefaults, pacingDefaults);

client.interceptors.response.use(undefined, retryInterceptor({ retries: 2 }));
client.interceptors.response.use(undefined, retryInterceptor());
client.interceptors.response.use(null, retryInterceptor());
axios.interceptors.response.use((response) => response, retryInterceptor({ retries: 1 }));
client.interceptors.response.use(undefined, (error: AxiosError) => retryInterceptor()(error));

// The per-request `retry` key comes from the module augmentation of axios's config.
const perRequest: RequestRetryOptions = { retries: 5, idempotencyKey: true };
void client.get('/users', { retry: false });
void client.post('/payments', { amount: 1 }, { retry: perRequest });
void client.put('/users/1', {}, { retry: { deadlineMs: 1_000, onRetry: () => {} } });
void client.request({ url: '/x', method: 'PATCH', retry: { idempotencyKey: { header: 'X-Key' } } });
void axios.get('/plain', { retry: { retries: 0 } });

function describeStop(reason: StopReason): string {
  switch (reason) {
    case 'not-retryable':
    case 'retries-exhausted':
    case 'deadline':
    case 'budget-exhausted':
    case 'retry-after-too-long':
    case 'canceled':
    case 'body-not-replayable':
    case 'disabled':
    case 'circuit-open':
    case 'upstream-gave-up':
      return reason;
    default: {
      // Exhaustive: a new stop reason must be added above, or this line stops compiling.
      const unreachable: never = reason;
      return unreachable;
    }
  }
}

async function readStateOfFailure(): Promise<void> {
  try {
    await client.get('/flaky');
  } catch (error) {
    if (!isAxiosError(error)) throw error;
    const state: RetryState | undefined = error.config?.retryState;
    const retryCount: number | undefined = state?.retryCount;
    const delays: readonly number[] | undefined = state?.delays;
    const key: string | undefined = state?.idempotencyKey;
    const reason: StopReason | undefined = state?.stopReason;
    console.log(retryCount, delays, key, reason && describeStop(reason));
  }
}
void readStateOfFailure();

async function readStateOfSuccess(): Promise<void> {
  const response = await client.get('/flaky');
  const startedAt: number | undefined = response.config.retryState?.startedAt;
  const waitedMs: number | undefined = response.config.retryState?.waitedMs;
  console.log(startedAt, waitedMs);
}
void readStateOfSuccess();

// Issue 17: an async shouldRetry, retryDelay, an async onRetry, the codes and the type guard.
attachRetry(axios.create(), {
  shouldRetry: async (error) => (error.response?.status === 404 ? false : undefined),
  retryDelay: (event: RetryDelayEvent) => event.delayMs * 2 + event.retryCount,
  onRetry: async () => {},
  deadlineMs: Infinity,
  circuitBreaker: { breakDurationMs: 60_000 },
});
export function reasonOf(error: unknown): StopReason | string | undefined {
  if (isRetryStop(error)) {
    const reason: StopReason = error.config.retryState.stopReason;
    const maybe: true | undefined = error.config.retryState.maybePerformed;
    return maybe && error.code === ERR_CIRCUIT_OPEN ? reason : ERR_RATE_LIMITED;
  }
  return undefined;
}
