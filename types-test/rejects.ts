// Misuses the public API: each `@ts-expect-error` line must fail to compile, or tsc reports
// the directive itself as unused.
import axios from 'axios';
import {
  attachRetry,
  type RetryEvent,
  type RetryState,
  retryInterceptor,
  type StopReason,
} from 'axios-safe-retry';

const client = axios.create();

// @ts-expect-error retries is a number, not a string
attachRetry(client, { retries: '3' });

// @ts-expect-error random is a function that returns a number
attachRetry(client, { random: 0.5 });

// @ts-expect-error statusCodes are numbers
attachRetry(client, { statusCodes: ['503'] });

// @ts-expect-error idempotencyKey is a boolean or an options object
attachRetry(client, { idempotencyKey: 'Idempotency-Key' });

// @ts-expect-error a misspelt option is caught
attachRetry(client, { retry: 3 });

// @ts-expect-error retryBudget is `false` or options, never `true`
attachRetry(client, { retryBudget: true });

// @ts-expect-error circuitBreaker is `false` or options, never `true`
attachRetry(client, { circuitBreaker: true });

// @ts-expect-error pacing is `false` or options
attachRetry(client, { pacing: 'adaptive' });

// @ts-expect-error the breaker belongs to the client: not a per-request option
client.get('/x', { retry: { circuitBreaker: false } });

// @ts-expect-error a misspelt breaker option is caught
attachRetry(client, { circuitBreaker: { threshold: 5 } });

// @ts-expect-error attachRetry needs the instance
attachRetry({ retries: 3 });

// @ts-expect-error retryInterceptor takes options, not an instance
retryInterceptor(client);

// @ts-expect-error one argument puts it in the success slot, where it never sees a failure
client.interceptors.response.use(retryInterceptor());

// @ts-expect-error nor with options
client.interceptors.response.use(retryInterceptor({ retries: 3 }));

// @ts-expect-error nor on the default axios
axios.interceptors.response.use(retryInterceptor(), undefined);

// @ts-expect-error the budget is shared by the whole client: it cannot be set per request
void client.get('/x', { retry: { retryBudget: { ratio: 0.5 } } });

// @ts-expect-error retryBudget: false is client-level too
void client.get('/x', { retry: { retryBudget: false } });

// @ts-expect-error per request, `retry` is options or `false`; `true` is not a thing
void client.get('/x', { retry: true });

// @ts-expect-error per-request options are type-checked like client options
void client.post('/x', {}, { retry: { retries: '5' } });

// @ts-expect-error an unknown stop reason
const unknownReason: StopReason = 'timeout';
void unknownReason;

function compareReason(state: RetryState): boolean {
  // @ts-expect-error comparing with a reason that does not exist can never be true
  return state.stopReason === 'gave-up';
}
void compareReason;

function mutateState(state: RetryState): void {
  // @ts-expect-error the state handed to users is read-only
  state.retryCount = 0;
  // @ts-expect-error including its delays
  state.delays.push(1);
}
void mutateState;

attachRetry(client, {
  onRetry: (event: RetryEvent) => {
    // @ts-expect-error the retry event is read-only
    event.delayMs = 0;
  },
});

// @ts-expect-error shouldRetry returns boolean | undefined, not a string
attachRetry(client, { shouldRetry: () => 'yes' });

// @ts-expect-error shouldRetry answers a boolean or undefined, not a number
attachRetry(client, { shouldRetry: () => 42 });

// @ts-expect-error retryDelay returns a number of milliseconds
attachRetry(client, { retryDelay: () => '100' });
